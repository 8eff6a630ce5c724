"""What every exporter shares about references to other files: mesh URIs, and what a format cannot hold.

Mesh and texture references come as `package://pkg/...` (ROS), `model://name/...` (Gazebo),
`file://` URIs, absolute paths, or paths relative to the description's folder.  An exported
model has to work from where it is written, so before any exporter runs:
- relative paths are rebased from the source's folder (model.metadata["source_dir"]) onto the
  output's folder (ExportOptions.output_dir), when both are known;
- `mesh_uri` chooses how references are written: `keep` (as read), `absolute` (`file://` + the
  absolute path), `package` (`package://`), `model` (`model://`).  The default keeps them, except
  that SDF output swaps `package://` for `model://` as libsdformat's URDF conversion does;
- `resolve_mesh_uris` looks every file up (package:// through the ament index and
  ROS_PACKAGE_PATH, model:// through the model paths) and warns about the ones that are missing.
A reference that cannot be written in the style asked is kept as it is, with a warning; a missing
file is a warning, never an error (the model itself is complete without its meshes).
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter

from .._record import Record, record
from ..errors import ModelError, listed
from ..model.model import Extension, Mesh, Model
from .base import Diagnostics, ExportOptions
from .packages import enclosing, find_model_dir, find_package, package_name, searched_for_packages

STYLES = ("keep", "absolute", "package", "model")
# the style each output format uses when none is asked (libsdformat writes model:// for package://)
DEFAULT_STYLE = {"sdf": "sdf-default"}
_SHOWN = 6


@record
class _Ref(Record):
    scheme: str  # package, model, file, relative, other
    body: str  # what follows the scheme: "pkg/path", "/abs/path", "rel/path", or the whole URI


NO_MESH_URI = "__default__"  # libsdformat's value of a <mesh> without <uri> (the specification's default)


def _parse(uri: str) -> _Ref:
    for scheme in ("package", "model", "file"):
        prefix = f"{scheme}://"
        if uri.startswith(prefix):
            return _Ref(scheme, uri[len(prefix):])
    if "://" in uri or uri == NO_MESH_URI:  # (a name, not a path)
        return _Ref("other", uri)
    if os.path.isabs(uri):
        return _Ref("file", uri)
    return _Ref("relative", uri)


class _Rewriter:
    def __init__(self, model: Model, fmt: str, options: ExportOptions, diag: Diagnostics) -> None:
        style = options.mesh_uri
        if style is not None and style not in STYLES:
            raise ModelError(f"unknown mesh URI style '{style}' (known: {', '.join(STYLES)})")
        self.style = style or DEFAULT_STYLE.get(fmt, "keep")
        self.resolve = options.resolve_mesh_uris or self.style in ("absolute", "package", "model")
        self.source_dir = model.metadata.get("source_dir")
        self.output_dir = os.path.abspath(options.output_dir) if options.output_dir else None
        self.search_paths = options.search_paths
        self.missing: list[str] = []
        self.unresolved: list[str] = []
        self.unstyled: list[str] = []
        self.unplaced: list[str] = []  # relative references of a model read as text, with no folder to start from
        self.cache: dict[str, str] = {}

    def locate(self, ref: _Ref) -> str | None:
        """Absolute path of the referenced file (it may not exist), or None when it cannot be known."""
        if ref.scheme in ("package", "model"):
            name, _, rest = ref.body.lstrip("/").partition("/")
            root = find_package(name) if ref.scheme == "package" else find_model_dir(name, self.search_paths)
            return os.path.join(root, rest) if root else None
        if ref.scheme == "file":
            return ref.body if os.path.isabs(ref.body) else (
                os.path.join(self.source_dir, ref.body) if self.source_dir else None)
        if ref.scheme == "relative" and self.source_dir:
            return os.path.normpath(os.path.join(self.source_dir, ref.body))
        return None

    def rebased(self, ref: _Ref) -> str | None:
        """A relative path as seen from the output folder (None for anything but a relative path)."""
        if ref.scheme != "relative":
            return None
        if self.source_dir and self.output_dir:
            return os.path.relpath(os.path.join(self.source_dir, ref.body), self.output_dir)
        return ref.body

    def rebased_file(self, uri: str) -> str | None:
        """A relative path to a file or folder that exists next to the source, as seen from the output folder; None for
        anything else (a name such as Gazebo's `__default__`, a `file://` URI that Gazebo looks up in its
        resource paths, a path to nothing: each stays as it is)."""
        ref = _parse(uri)
        if ref.scheme != "relative" or not (self.source_dir and self.output_dir):
            return None
        return self.rebased(ref) if os.path.exists(os.path.join(self.source_dir, ref.body)) else None

    def __call__(self, uri: str) -> str:
        out = self.cache.get(uri)
        if out is None:
            out = self.cache[uri] = self._rewrite(uri)
        return out

    def _rewrite(self, uri: str) -> str:
        ref = _parse(uri)
        if ref.scheme == "other":
            return uri
        if (not self.source_dir and (self.resolve or self.output_dir)
                and (ref.scheme == "relative" or (ref.scheme == "file" and not os.path.isabs(ref.body)))):
            self.unplaced.append(uri)  # (neither rebased, styled nor looked up: said once, here)
            return uri
        path = self.locate(ref) if self.resolve else None
        if self.resolve:
            if path is None and ref.scheme in ("package", "model"):
                self.unresolved.append(uri)
            elif path is not None and not os.path.isfile(path):
                self.missing.append(uri)
        kept = self.rebased(ref) or uri
        if self.style == "keep":
            return kept
        if self.style == "sdf-default":
            return "model://" + ref.body if ref.scheme == "package" else kept
        if self.style == "absolute":
            return "file://" + os.path.abspath(path) if path else kept
        if ref.scheme == "model" and self.style == "package":  # (a model folder need not be a ROS package)
            root = enclosing(path, "package.xml") if path is not None else None
            if root is not None:
                return f"package://{package_name(root)}/{os.path.relpath(path, root)}"
            self.unstyled.append(uri)
            return kept
        if ref.scheme == "package" and self.style == "model" and path is None:  # (not located: an installed package's
            return f"model://{ref.body}"  # share folder is named as the package, and Gazebo finds it so)
        if ref.scheme == self.style:
            return uri
        if path is not None:
            marker = "package.xml" if self.style == "package" else "model.config"
            root = enclosing(path, marker) or (enclosing(path, "package.xml") if self.style == "model" else None)
            if root is not None:  # (Gazebo finds a model:// by its folder's name, ROS a package:// by its package's)
                name = package_name(root) if self.style == "package" else os.path.basename(root)
                return f"{self.style}://{name}/{os.path.relpath(path, root)}"
        self.unstyled.append(uri)
        return kept

    def report(self, diag: Diagnostics) -> None:
        if self.unplaced:
            diag.warn(f"{len(self.unplaced)} relative mesh reference(s) are written as they were, neither rebased, "
                      "looked up nor written as asked: the model has no folder of its own for them to be relative to (it "
                      f"was read from standard input or a string, or built in code): {listed(self.unplaced, _SHOWN)}")
        if self.unresolved:
            diag.warn(f"{len(self.unresolved)} mesh URI(s) name a package or model that was not found "
                      f"({listed(self.unresolved, _SHOWN)}); packages searched: {searched_for_packages()}; models searched: "
                      "the SDF model paths")
        if self.missing:
            diag.warn(f"{len(self.missing)} mesh file(s) do not exist: {listed(self.missing, _SHOWN)}")
        if self.unstyled:
            where = "a ROS package (package.xml)" if self.style == "package" else "a model or package directory"
            if self.style == "absolute":
                where = "a file this machine can locate"
            diag.warn(f"{len(self.unstyled)} mesh reference(s) are not inside {where}, so they are written as "
                      f"they were, not as {self.style} URIs: {listed(self.unstyled, _SHOWN)}")


def rewrite_mesh_uris(model: Model, fmt: str, options: ExportOptions, diag: Diagnostics) -> Model:
    """The model with mesh and texture references written for `fmt` (a copy when anything changes)."""
    rewriter = _Rewriter(model, fmt, options, diag)
    changes: list[tuple[object, str, str]] = []
    for link in model.links.values():
        for shape in (*link.visuals, *link.collisions):
            if isinstance(shape, Mesh) and shape.filename:
                changes.append((shape, "filename", rewriter(shape.filename)))
            if shape.material is not None and shape.material.texture:
                changes.append((shape.material, "texture", rewriter(shape.material.texture)))
    rewriter.report(diag)
    kept = _rebased_extensions(model, rewriter)
    if all(getattr(obj, attr) == new for obj, attr, new in changes) and not kept:
        return model
    new_values = {(id(obj), attr): new for obj, attr, new in changes}
    copy = model.copy()
    for i, xml in kept.items():
        copy.extensions[i] = dataclasses.replace(copy.extensions[i], xml=xml)
    if rewriter.output_dir and rewriter.source_dir:
        copy.metadata["source_dir"] = rewriter.output_dir  # relative paths now start there
    for link_old, link_new in zip(model.links.values(), copy.links.values()):
        for old, new in zip((*link_old.visuals, *link_old.collisions), (*link_new.visuals, *link_new.collisions)):
            if (id(old), "filename") in new_values:
                new.filename = new_values[(id(old), "filename")]
            if old.material is not None and (id(old.material), "texture") in new_values:
                new.material.texture = new_values[(id(old.material), "texture")]
    return copy


def _rebased_extensions(model: Model, rewriter: _Rewriter) -> dict[int, str]:
    """Kept SDF elements (model.extensions) with their relative paths to files (an SDF material's `<script><uri>`,
    a PBR `<albedo_map>`, a `<cubemap_uri>`) rebased onto the output's folder, as meshes are: {index: new xml}."""
    out: dict[int, str] = {}
    for i, e in enumerate(model.extensions):
        if e.format != "sdf" or e.attributes or e.tag == "plugin" or ("uri>" not in e.xml and "_map>" not in e.xml):
            continue
        from .xmlutil import fragment  # (lxml: not imported by every exporter)

        el = fragment(e.xml)
        changed = False
        for c in el.iter():
            if (isinstance(c.tag, str) and c.tag.endswith(("uri", "_map")) and (c.text or "").strip()
                    and not any(a.tag == "plugin" for a in c.iterancestors())):  # (a plugin's parameters are its own)
                new = rewriter.rebased_file(c.text.strip())
                if new is not None and new != c.text:
                    c.text, changed = new, True
        if changed:
            from lxml import etree

            out[i] = etree.tostring(el, encoding="unicode")
    return out


# Kept elements another format's exporter translates instead of losing: (source format, tag, owner kind).
# The SDF writer turns a URDF's top-level <gazebo> blocks into SDF, as libsdformat's URDF reader does.
TRANSLATED: dict[str, set[tuple[str, str, str | None]]] = {"sdf": {("urdf", "gazebo", None)}}
# the formats that write an SDF model's pose in its world where a fixed joint holds the base there (held_placement)
HOLD_PLACEMENT = frozenset(("urdf", "mjcf"))


def report_lost_extensions(model: Model, fmt: str, diag: Diagnostics) -> None:
    """One warning naming the source elements and attributes (model.extensions) that `fmt` cannot hold, and
    how many.

    Only the exporter of the format they were read from writes them back.  A URDF's global
    `<material>` table is not counted, its colours being on the shapes that use them, unless a material
    has more than its name, colour and texture.
    """
    held: tuple = ()
    if fmt in HOLD_PLACEMENT and model.metadata.get("sdf_world_joints"):  # (a world joint's pose: written there)
        from ..model.topology import tree_order
        from .common import held_placement

        placed = held_placement(model, model.default_base_link or tree_order(model).root)
        held = placed[1] if placed is not None else ()
    lost = Counter(
        (e.format, _lost_name(e))
        for e in model.extensions
        if e.format != fmt and not (e.tag == "material" and e.owner_kind is None and _plain_material(e))
        and (e.format, e.tag, e.owner_kind) not in TRANSLATED.get(fmt, ()) and not any(e is h for h in held)
    )
    if not lost:
        return
    by_format: dict[str, list[str]] = {}
    for (source, (what, where)), n in sorted(lost.items(), key=lambda kv: (-kv[1], kv[0])):
        by_format.setdefault(source, []).append(f"{what} {n} <{where}" if what else f"{n} <{where}")
    parts = [f"{sum(n for (s, _), n in lost.items() if s == source)} {source.upper()} element(s) or attribute(s) "
             f"that {fmt} cannot hold are not written: " + ", ".join(items) for source, items in by_format.items()]
    diag.warn("; ".join(parts))


def _plain_material(e: Extension) -> bool:
    """Whether a URDF's global <material> holds only what its shapes got (a name, an rgba colour, a texture file)."""
    if e.attributes:
        return False
    from .xmlutil import fragment

    el = fragment(e.xml)
    if set(el.keys()) - {"name"}:
        return False
    return all(c.tag in _MATERIAL_CHILDREN and set(c.keys()) <= _MATERIAL_CHILDREN[c.tag] and not len(c)
               for c in el)


_MATERIAL_CHILDREN = {"color": {"rgba"}, "texture": {"filename"}}


def _lost_name(e: Extension) -> tuple[str, str]:
    """("", "tag> in <material> in <visual>") for an element, ("attribute(s) a, b of", "tag> in <joint>")
    for attributes: the warning counts alike ones."""
    inside = e.path[:-1] if e.attributes else e.path  # the elements around it, below the owner
    where = "".join(f" in <{t}>" for t in reversed(inside))
    if e.owner_kind is not None and not (e.attributes and not e.path):  # (else they are the owner's own)
        where += f" in <{e.owner_kind}>"
    if not e.attributes:
        return "", f"{e.tag}>{where}"
    from .xmlutil import fragment  # (lxml: not imported by every exporter)

    el = fragment(e.xml)
    prefixes = {uri: p for p, uri in el.nsmap.items() if p}
    names = [k if k[0] != "{" else f"{prefixes.get(k[1:k.index('}')], '')}:{k[k.index('}') + 1:]}" for k in el.attrib]
    return f"attribute(s) {', '.join(names)} of", f"{e.tag}>{where}"


__all__ = ["STYLES", "report_lost_extensions", "rewrite_mesh_uris"]
