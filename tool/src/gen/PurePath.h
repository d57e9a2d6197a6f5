// Path arithmetic as torchgen does it with Python's pathlib.PurePosixPath and os.path.join, so that
// the paths opgen records (and lists for --output-dependencies) are spelled like torchgen's.
#pragma once

#include <string>
#include <string_view>

namespace opgen::gen {

// str(PurePosixPath(p)): repeated slashes and "." components dropped, no trailing slash, "" -> ".";
// ".." is kept; a leading "//" (exactly two) is kept, as POSIX allows.
std::string purePath(std::string_view p);

// str(PurePosixPath(dir) / name): `name` when it is absolute.
std::string joinPurePath(std::string_view dir, std::string_view name);

// os.path.join(a, b).
std::string osPathJoin(std::string_view a, std::string_view b);

// PurePath.name, .stem (the name without its last suffix; a leading dot is not a suffix), and
// .with_stem(stem) (the same directory and suffix).
std::string_view pathName(std::string_view p);
std::string_view pathStem(std::string_view p);
std::string pathWithStem(std::string_view p, std::string_view stem);

// PurePath ordering: component by component (so "a/b" < "a-b", unlike a string comparison).
bool purePathLess(std::string_view a, std::string_view b);

}  // namespace opgen::gen
