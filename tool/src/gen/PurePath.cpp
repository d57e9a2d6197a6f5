#include "gen/PurePath.h"

#include <vector>

namespace opgen::gen {

namespace {

std::vector<std::string_view> components(std::string_view p) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < p.size()) {
    size_t slash = p.find('/', i);
    if (slash == std::string_view::npos) slash = p.size();
    std::string_view part = p.substr(i, slash - i);
    if (!part.empty() && part != ".") parts.push_back(part);
    i = slash + 1;
  }
  return parts;
}

// Whether purePath(p) == p: "." or "/", or components that are neither empty nor "." (so no
// repeated or trailing slash; a leading "//" is an empty component too, and takes the long way).
bool isPure(std::string_view p) {
  if (p == "." || p == "/") return true;
  if (p.empty() || p.back() == '/') return false;
  for (size_t i = p[0] == '/' ? 1 : 0;;) {
    const size_t slash = p.find('/', i);
    const size_t end = slash == std::string_view::npos ? p.size() : slash;
    if (end == i || (end == i + 1 && p[i] == '.')) return false;
    if (slash == std::string_view::npos) return true;
    i = slash + 1;
  }
}

}  // namespace

std::string purePath(std::string_view p) {
  // Every output path goes through here (twice); most are already pure.
  if (isPure(p)) return std::string(p);
  std::string out;
  out.reserve(p.size());
  if (!p.empty() && p[0] == '/') out = p.size() >= 2 && p[1] == '/' && (p.size() == 2 || p[2] != '/') ? "//" : "/";
  const size_t rootSize = out.size();
  for (size_t i = 0; i < p.size();) {  // the components of `p` (see components()), joined by '/'
    size_t slash = p.find('/', i);
    if (slash == std::string_view::npos) slash = p.size();
    const std::string_view part = p.substr(i, slash - i);
    if (!part.empty() && part != ".") {
      if (out.size() > rootSize) out += '/';
      out += part;
    }
    i = slash + 1;
  }
  return out.empty() ? "." : out;
}

std::string joinPurePath(std::string_view dir, std::string_view name) {
  if (!name.empty() && name[0] == '/') return purePath(name);
  std::string joined;
  joined.reserve(dir.size() + 1 + name.size());
  // A pure directory (not ".") and a pure relative name (not "."): their components, in order.
  if (dir != "." && name != "." && isPure(dir) && isPure(name)) {
    joined.append(dir);
    if (joined.back() != '/') joined += '/';  // the root "/" has its slash
    return joined.append(name);
  }
  joined.append(dir).append("/").append(name);
  return purePath(joined);
}

std::string osPathJoin(std::string_view a, std::string_view b) {
  if (!b.empty() && b[0] == '/') return std::string(b);
  if (a.empty() || a.back() == '/') return std::string(a) + std::string(b);
  return std::string(a) + "/" + std::string(b);
}

std::string_view pathName(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  const size_t slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

std::string_view pathStem(std::string_view p) {
  std::string_view name = pathName(p);
  const size_t dot = name.rfind('.');
  return dot != std::string_view::npos && dot > 0 && dot + 1 < name.size() ? name.substr(0, dot) : name;
}

std::string pathWithStem(std::string_view p, std::string_view stem) {
  std::string_view name = pathName(p);
  std::string_view oldStem = pathStem(p);
  std::string_view suffix = name.substr(oldStem.size());
  std::string_view dir = p.substr(0, p.size() - name.size());
  return std::string(dir) + std::string(stem) + std::string(suffix);
}

bool purePathLess(std::string_view a, std::string_view b) {
  auto rootOf = [](std::string_view p) { return p.empty() || p[0] != '/' ? std::string_view() : p.substr(0, 1); };
  std::vector<std::string_view> pa = components(a), pb = components(b);
  // An absolute path's first part is its root ("/"), as in pathlib's _cparts.
  if (!rootOf(a).empty()) pa.insert(pa.begin(), rootOf(a));
  if (!rootOf(b).empty()) pb.insert(pb.begin(), rootOf(b));
  return pa < pb;
}

}  // namespace opgen::gen
