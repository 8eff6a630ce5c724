"""Safe XML parsing and strict attribute reading for the XML formats (URDF, SDF, SKEL).

Model files come from anywhere (a ROS parameter, a service call), so the parser never touches
the network, never expands entities and refuses documents that declare them.  Every value read
goes through helpers that name the element and line of a bad value.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from lxml import etree

from .._lazy import LazyPattern
from ..errors import ModelError
from .base import check_text
from .numbers import INT_MAX, INT_MIN, MAX_NUMBER_CHARS, NumberError, show, xml_doubles, xml_int

_PARSER_OPTIONS = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,
    "remove_comments": True,
    "remove_pis": True,
}
_NO_BLANKS_OPTIONS = {**_PARSER_OPTIONS, "remove_blank_text": True}


def _document(text: str | bytes, source: str | None) -> str | bytes:
    """The document as libxml2 may parse it: entity declarations refused, line ends normalised.

    A str stays a str (the streaming reader feeds it in pieces, without a second copy of the whole
    document as bytes); an encoding declaration in it is dropped, since the text is decoded already.
    """
    if isinstance(text, str):
        check_text(text, source)
        data: str | bytes = text
        nl, cr, crlf = "\n", "\r", "\r\n"
        decl = r"\s+(<\?xml[^>]*\?>)"
    else:
        data = text
        nl, cr, crlf = b"\n", b"\r", b"\r\n"
        decl = rb"\s+(<\?xml[^>]*\?>)"
    if cr in data:
        # XML's own end-of-line handling, done before libxml2 so that its line numbers count lone CRs
        data = data.replace(crlf, nl).replace(cr, nl)
    refuse_entities(data, source)
    m = re.match(decl, data)
    if m:  # a declaration must come first: move it before the blank lines, which keep the line count
        data = m.group(1) + data[: m.start(1)] + data[m.end(1):]
    if isinstance(data, str) and data.startswith("<?xml"):
        data = _declaration_blanked(data, source)
    return data


_ENCODING_VALUE = LazyPattern(r"encoding\s*=\s*[\"'][^\"']*[\"']")


def _without_encoding(decl: str) -> str:
    """The declaration `decl` without what lxml's encoding pattern finds (each encoding pseudo-attribute
    and the white space character before it), replaced by the line ends it spanned.  By search and
    anchored matches, so linear: the pattern itself backtracks quadratically on long white space."""
    out: list[str] = []
    pos = 0
    gt = decl.find(">")  # lxml's pattern looks no further for the name: `<?xml`, then [^>]+, then \s+encoding
    while True:
        k = decl.find("encoding", pos, gt)
        if k < 0:
            out.append(decl[pos:])
            return "".join(out)
        m = _ENCODING_VALUE.match(decl, k)
        # the pattern's greedy [^>]+ leaves its \s+ the one white space character before the name (and
        # takes at least one character after `<?xml` itself)
        j = k - 1
        if m is None or j < 6 or not decl[j].isspace():  # not a pseudo-attribute
            out.append(decl[pos:k + 8])
            pos = k + 8
            continue
        out.append(decl[pos:j] + "\n" * decl.count("\n", j, m.end()))
        pos = m.end()


def _declaration_blanked(data: str, source: str | None) -> str | bytes:
    """`data` with its leading `<?xml ...?>` checked by libxml2 on its own and replaced by the line ends
    it spanned.

    lxml refuses a str whose declaration names an encoding (the text is decoded already, so the name is
    dropped), and looks for one with a pattern that backtracks quadratically on a declaration with a
    long run of white space (seconds for 40,000 spaces); with the declaration gone it has nothing to
    look at.  Its errors are libxml2's, on their lines, as before."""
    end = data.find("?>")
    if end < 0 or data.find(">", 0, end) >= 0:
        # no declaration libxml2 would accept (its values hold no '>'), or a <?xml-...?> instruction holding
        # one: read as UTF-8 bytes, on which lxml makes no test and libxml2 reports what is wrong
        return data.encode("utf-8")
    decl = data[:end + 2]
    try:
        etree.fromstring((_without_encoding(decl) + "<r/>").encode("utf-8"), etree.XMLParser(**_PARSER_OPTIONS))
    except etree.XMLSyntaxError as e:
        raise _syntax_error(e, source) from None
    return "\n" * decl.count("\n") + data[end + 2:]


def refuse_entities(data: str | bytes, source: str | None) -> None:
    """Entity declarations could expand to gigabytes or read other files: refuse the document."""
    entity, nl = ("<!ENTITY", "\n") if isinstance(data, str) else (b"<!ENTITY", b"\n")
    pos = data.find(entity)
    if pos >= 0:
        raise ModelError(
            "the document declares XML entities (<!ENTITY>); entity declarations are refused "
            "so that no file can expand to gigabytes or read other files",
            source=source,
            line=data.count(nl, 0, pos) + 1,
        )


def _syntax_error(e: etree.XMLSyntaxError, source: str | None) -> ModelError:
    line = e.lineno if e.lineno else None
    msg = (e.msg or str(e)).strip()
    msg = re.sub(r", line \d+, column \d+$", "", msg).strip()
    if msg.startswith("Excessive depth in document"):  # well-formed: libxml2's limit, whose option no user can set
        return ModelError(f"elements nest more than {LIBXML2_MAX_DEPTH} levels deep, more than this reader accepts",
                          source=source, line=line)
    return ModelError(f"malformed XML: {msg}", source=source, line=line)


LIBXML2_MAX_DEPTH = 256  # libxml2's nesting limit without XML_PARSE_HUGE (lxml's huge_tree)


def parse_xml(text: str | bytes, source: str | None = None, *,
              max_depth: int | None = None, depth_reason: str = "", blank_text: bool = True) -> etree._Element:
    """Parse a document, or raise ModelError with the line of the first syntax error.

    `max_depth` (root = 1) lets a format whose elements nest per link (MJCF's bodies) go past libxml2's
    default limit up to what its own tools read, `depth_reason`; the deep parse is tried only when the
    default one stops there, so ordinary documents pay nothing for it.  `blank_text=False` drops the white
    space between elements (the indentation), which is nodes to make, walk past and free for no reader
    (URDF, SDFormat, SKEL: 2-4% of a load).  Text with anything but white space stays, as does the white
    space of an element holding only text and of xml:space="preserve"; white space next to a removed
    comment goes with it, even in an element without children (`<a>  <!--c-->  1</a>` reads `'  1'`, which
    every reader strips).  An element kept as XML is kept without the source's indentation, which the
    writers make anew."""
    data = _document(text, source)
    if isinstance(data, str):
        data = data.encode("utf-8")
    options = _PARSER_OPTIONS if blank_text else _NO_BLANKS_OPTIONS
    try:
        root = etree.fromstring(data, etree.XMLParser(**options))
    except etree.XMLSyntaxError as e:
        error = _syntax_error(e, source)
        if not (max_depth and max_depth > LIBXML2_MAX_DEPTH and error.message.startswith("elements nest")):
            raise error from None
        reason = depth_reason or f"at most {max_depth} are read"
        try:  # (entities stay refused: _document turned away their declarations)
            root = etree.fromstring(data, etree.XMLParser(**{**options, "huge_tree": True}))
        except etree.XMLSyntaxError as e2:
            error = _syntax_error(e2, source)
            if error.message.startswith("elements nest"):  # (libxml2 stops even a huge parse, at 2048 levels)
                error.message = f"elements nest more than {max_depth} levels deep; {reason}"
                error.args = (str(error),)
            raise error from None
        # the first element one level too deep, found by libxml2's XPath (a walk in Python of a wide document
        # held every element of a level at once)
        too_deep = root.xpath("/".join(["*"] * max_depth))
        if too_deep:
            raise ModelError(f"elements nest more than {max_depth} levels deep; {reason}", source=source,
                             line=too_deep[0].sourceline) from None
    if root is None:
        raise ModelError("empty document", source=source)
    return root


_PREFIX_USE = LazyPattern(r"<\/?([A-Za-z_][\w.-]*):|\s([A-Za-z_][\w.-]*):[A-Za-z_][\w.-]*\s*=")
_ELEMENT_PREFIX_USE = LazyPattern(r"<\/?([A-Za-z_][\w.-]*):")
_PREFIXED_ATTRIBUTE = LazyPattern(r":[A-Za-z_][\w.-]*\s*=")
_PREFIX_DECLARATION = LazyPattern(r"xmlns:([A-Za-z_][\w.-]*)\s*=")


def _undeclared_prefixes(data: str | bytes) -> bool:
    """Whether an element or attribute may use a namespace prefix that no xmlns: declares (cheap scan).

    The attribute pattern, anchored on white space, tries every gap of the document (2.4 ms on
    iCubGenova02, a tenth of its load): it runs only when a search anchored on ':' finds a prefixed
    attribute at all (`package://` and `http://` are none), with the same result."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    if ":" not in data:
        return False
    if _PREFIXED_ATTRIBUTE.search(data):
        used = {a or b for a, b in _PREFIX_USE.findall(data)}
    else:
        used = set(_ELEMENT_PREFIX_USE.findall(data))
    used -= {"xmlns", "xml"}
    return bool(used - set(_PREFIX_DECLARATION.findall(data)))


class XmlStream:
    """The children of a document's root element, one complete subtree at a time.

    Parsing a whole 100,000-link URDF into a tree takes 700 MB (libxml2 nodes are ~500 bytes each);
    a reader that consumes the top-level elements as they come needs only a few of them at a time.
    Same safety as parse_xml; a syntax error is raised (as ModelError) when the stream reaches it.
    Elements the consumer wants after the stream moves on are kept with `keep` (URDF's sensors, read
    once the model is complete).

    A large document (over WHOLE) is cut into pieces of about PIECE characters, each a run of whole top-level
    elements wrapped in a copy of the root's start tag (with blank lines before it, so that line
    numbers are the document's), and each piece is parsed whole in a worker thread while the
    consumer reads the one before: libxml2 parses without the GIL, so on two cores the parse (a
    fifth of a 100,000-link load) hides behind the Python work.  The cuts are made before a `<tag`
    of the `tags` (URDF: link, joint), found by a text search; a cut inside a comment, a CDATA
    section or a nested element leaves the piece before it unclosed, so that piece fails to parse,
    and the stream goes on from there with libxml2's pull parser, which reads the rest in order
    (and reports a real syntax error).  Every piece that did parse is a run of top-level elements.
    A piece that fails before the line it was cut on has a real error: the one the whole document
    gives (the pull parser reports some errors less precisely, e.g. an undefined entity).
    """

    CHUNK = 1 << 20  # pull parser: characters fed at a time
    PIECE = 1 << 18  # characters per piece (smaller is no faster: 128 KB, 256 KB, 512 KB give 3.9 s for 100,000 links)
    # Documents up to this size are parsed whole, in one call: a tree of 8 MB of URDF is ~100 MB for the
    # time of the load, and the whole document's first syntax error is reported before any element is
    # read (pieces would give the same times from 2 MB on).  Larger documents come in pieces.
    WHOLE = 8 << 20
    PIECES = True  # False: larger documents go to the pull parser directly (tests compare the two)

    def __init__(self, text: str | bytes, source: str | None = None, tags: tuple[str, ...] | None = None,
                 blank_text: bool = True) -> None:
        """`blank_text=False`: the white space between elements is dropped, as by parse_xml."""
        self.source = source
        self._options = _PARSER_OPTIONS if blank_text else _NO_BLANKS_OPTIONS
        self.kept: list[etree._Element] = []
        self._holder: etree._Element | None = None
        self._data = _document(text, source)
        self._tags = tags
        self._read = False
        self._whole = len(self._data) <= self.WHOLE
        self._pieces: _Pieces | None = None
        if self._whole:
            try:
                self.root = etree.fromstring(self._data, etree.XMLParser(**self._options))
            except etree.XMLSyntaxError as e:
                raise _syntax_error(e, source) from None
            self._data = b""
            if self.root is None:
                raise ModelError("empty document", source=source)
            return
        if _undeclared_prefixes(self._data):
            # libxml2's push parser reports an undeclared namespace prefix only at the very end, after
            # the elements were read (and their invalid names used): parse whole to get the error first
            data = self._data.encode("utf-8") if isinstance(self._data, str) else self._data
            try:
                etree.fromstring(data, etree.XMLParser(**_PARSER_OPTIONS))
            except etree.XMLSyntaxError as e:
                raise _syntax_error(e, source) from None
        if self.PIECES and tags and isinstance(self._data, str):
            self._pieces = _Pieces.cut(self._data, tags, self.PIECE, self._options)
        if self._pieces is not None:
            self.root = self._pieces.root
            self._data = b""  # the pieces hold it, until the last one is read
            return
        self._start_pull(self._data)

    def _start_pull(self, data: str | bytes) -> None:
        self._data = data
        self._offset = 0
        self._parser = etree.XMLPullParser(events=("end",), tag=self._tags, **self._options)
        self._pending: list[etree._Element] = []
        self._closed = False
        self._first = self._next()
        if self._first is not None:
            self.root = self._first.getroottree().getroot()
        else:  # no reported element: the whole document is parsed by now
            self.root = self._root
            if self.root is None:
                raise ModelError("empty document", source=self.source)

    def _next(self) -> etree._Element | None:
        """The next reported element, feeding the parser a piece of the document at a time."""
        try:
            while not self._pending:
                if self._closed:
                    return None
                if self._offset < len(self._data):
                    self._parser.feed(self._data[self._offset:self._offset + self.CHUNK])
                    self._offset += self.CHUNK
                else:
                    self._root = self._parser.close()
                    self._closed = True
                    self._data = b""
                self._pending = [el for _, el in self._parser.read_events()]
                self._pending.reverse()
            return self._pending.pop()
        except etree.XMLSyntaxError as e:
            raise _syntax_error(e, self.source) from None

    def keep(self, el: etree._Element) -> None:
        """Keep `el` (with its line numbers) after the stream moves on, in `self.kept`.

        A document parsed whole stays whole until the stream goes; a streamed one drops each element
        read, so `el` is moved out of it first (under an element of its own)."""
        if not self._whole:
            if self._holder is None:  # declaring the root's prefixes, so that `el` serialises as it would in place
                nsmap = {p: uri for p, uri in self.root.nsmap.items() if p is not None}
                self._holder = etree.Element("kept", nsmap=nsmap)
            self._holder.append(el)
        self.kept.append(el)

    def __iter__(self):
        if self._whole:  # a snapshot: `keep` moves elements out of the root
            yield from list(self.root)
            return
        if self._read:
            raise RuntimeError("a streamed document is read once")
        self._read = True
        if self._pieces is not None:
            yield from self._iter_pieces(self._pieces)
        else:
            yield from self._iter_pull()

    def _iter_pieces(self, pieces: _Pieces):
        from concurrent.futures import ThreadPoolExecutor

        worker = ThreadPoolExecutor(1, thread_name_prefix="xml-piece")
        try:
            pending = worker.submit(pieces.parse, 0)
            for k in range(len(pieces.cuts) - 1):
                try:
                    root = pending.result()
                except etree.XMLSyntaxError as e:
                    if e.lineno and e.lineno <= pieces.lines[k + 1]:
                        # found before the line the piece was cut on, so not caused by the cut: what
                        # parsing the whole document finds first (the text up to it is the document's)
                        raise _syntax_error(e, self.source) from None
                    # a cut that was no element boundary (or an error on its line): in order from here
                    self._pieces = None
                    self._start_pull(pieces.rest(k))
                    yield from self._iter_pull()
                    return
                if k + 2 < len(pieces.cuts):
                    pending = worker.submit(pieces.parse, k + 1)
                else:  # the last piece: the document can go (the caller holds no other reference to it)
                    self._pieces = None
                    pieces.data = ""
                yield from list(root)  # a snapshot: `keep` moves elements out
        finally:
            worker.shutdown(wait=False, cancel_futures=True)

    def _iter_pull(self):
        root = self.root
        done: etree._Element | None = None  # the last element yielded, cleared, still in the tree
        el = self._first
        while el is not None:
            if el is not root and el.getparent() is root:
                # complete top-level elements the parser did not report: between `done` and `el`
                # (the parser may be ahead, so later siblings exist: never scan the whole root)
                unreported = []
                prev = el.getprevious()
                while prev is not None and prev is not done:
                    unreported.append(prev)
                    prev = prev.getprevious()
                unreported.reverse()
                yield from unreported
                yield el
                for other in [done, *unreported, el]:
                    if other is not None and other is not el and other.getparent() is root:
                        root.remove(other)
                if el.getparent() is root:  # not kept
                    el.clear(keep_tail=True)
                    done = el
                else:
                    done = None
            el = self._next()
        tail = [other for other in root if other is not done]  # after the last reported element
        yield from tail


# the prolog without a DOCTYPE: white space, the declaration, comments, processing instructions
_PROLOG = LazyPattern(r"(?:\s+|<\?.*?\?>|<!--.*?-->)*", re.S)
_START_TAG = LazyPattern(r"<([A-Za-z_][\w.:-]*)(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*>")


class _Pieces:
    """A document cut for XmlStream: the root's start tag, and cut positions in its content."""

    def __init__(self, data: str, root: etree._Element, head: str, end_tag: str, cuts: list[int],
                 options: dict) -> None:
        self.data = data
        self.options = options  # the parser's, for every piece
        self.root = root  # the root element alone (its tag and attributes), parsed from head and end tag
        self.head = head  # the root's start tag, as written
        self.head_lines = head.count("\n")  # line ends inside it
        self.end_tag = end_tag
        self.cuts = cuts  # the content from cuts[k] to cuts[k + 1] is piece k; the last is the root's end
        self.lines = [data.count("\n", 0, cuts[0])]  # line ends before each cut
        for k in range(1, len(cuts)):
            self.lines.append(self.lines[-1] + data.count("\n", cuts[k - 1], cuts[k]))

    # blank lines in front of all pieces together, at most this many per character of the document:
    # a document of many short lines would make the pieces' parse quadratic (libxml2 also refuses more
    # than 10 million blank lines before the root)
    BLANK_PER_CHAR = 2
    MAX_LINES = 4_000_000

    @classmethod
    def cut(cls, data: str, tags: tuple[str, ...], size: int, options: dict) -> _Pieces | None:
        """The pieces of `data`, or None when the pull parser must read it all: an outline that is not
        the plain one (prolog, root start tag, content, end tag, comments and white space), a DOCTYPE
        (its attribute defaults apply to every piece), xml:id attributes (unique across pieces), or
        too many lines."""
        start = _PROLOG.match(data).end()
        if data.startswith("<!DOCTYPE", start) or "xml:id" in data:
            return None
        m = _START_TAG.match(data, start)
        if m is None:
            return None
        name = m.group(1)
        end = data.rfind("</" + name)
        close = re.compile(r"</" + re.escape(name) + r"\s*>").match(data, end) if end > m.end() else None
        if close is None:
            return None
        try:  # the document without its content: prolog, root and epilog checked by libxml2 itself
            root = etree.fromstring(data[:m.end()] + data[end:], etree.XMLParser(**_PARSER_OPTIONS))
        except etree.XMLSyntaxError:
            return None
        at = re.compile("<(?:" + "|".join(re.escape(t) for t in tags) + r")[\s/>]")
        # pieces of at least half as many characters as the document has lines: the blank lines before
        # all pieces together then stay under the document's length (a pretty-printed file has many)
        size = max(size, data.count("\n", m.end(), end) // 2)
        cuts = [m.end()]
        while True:
            hit = at.search(data, cuts[-1] + size, end)
            if hit is None:
                break
            cuts.append(hit.start())
        cuts.append(end)
        pieces = cls(data, root, m.group(0), f"</{name}>", cuts, options)
        if pieces.lines[-1] > cls.MAX_LINES or sum(pieces.lines) > cls.BLANK_PER_CHAR * len(data):
            return None
        return pieces

    def _text(self, k: int, end: int | None) -> str:
        """Piece k (to the end of the document when `end` is None), on the lines it has in the document."""
        blank = "\n" * (self.lines[k] - self.head_lines)
        if end is None:
            return blank + self.head + self.data[self.cuts[k]:]
        return blank + self.head + self.data[self.cuts[k]:self.cuts[end]] + self.end_tag

    def parse(self, k: int) -> etree._Element:
        """Piece k's root (runs in the worker thread: libxml2 parses without the GIL)."""
        return etree.fromstring(self._text(k, k + 1), etree.XMLParser(**self.options))

    def rest(self, k: int) -> str:
        """The document from piece k on, for the pull parser."""
        return self._text(k, None)


# What may come before the root element, each matched by one regular expression that never backtracks (an
# alternative is chosen by its first characters, and nothing follows the repetition): comments, processing
# instructions and white space; a DOCTYPE's name and external id (quoted literals may hold '>' or '['); its
# internal subset (declarations, whose quoted literals and comments may hold ']').
_MISC = LazyPattern(r"(?:\s+|<!--.*?-->|<\?.*?\?>)*", re.S)
_DOCTYPE_HEAD = LazyPattern(r"""(?:[^"'\[>]+|"[^"]*"|'[^']*')*""")
_DOCTYPE_SUBSET = LazyPattern(r"""(?:[^"'<\]]+|"[^"]*"|'[^']*'|<!--.*?-->|<!(?!--)|<\?.*?\?>|<(?![!?]))*""", re.S)
_ROOT_START = LazyPattern(r"<\s*([A-Za-z_][\w.:-]*)")


def root_tag(text: str) -> str | None:
    """The root element's name, without parsing (for format detection): past a prolog of any length (a licence
    comment of 20,000 characters made a URDF 'neither JSON nor XML'), in time linear in the prolog."""
    pos = _MISC.match(text, 1 if text.startswith("\ufeff") else 0).end()
    if text.startswith("<!DOCTYPE", pos):
        pos = _DOCTYPE_HEAD.match(text, pos + 9).end()
        if text.startswith("[", pos):
            pos = _DOCTYPE_SUBSET.match(text, pos + 1).end()
            if not text.startswith("]", pos):
                return None  # an internal subset that does not end: no root element
            pos = _MISC.match(text, pos + 1).end()
        if not text.startswith(">", pos):
            return None
        pos = _MISC.match(text, pos + 1).end()
    m = _ROOT_START.match(text, pos)
    return m.group(1) if m else None


@functools.lru_cache(maxsize=4096)  # readers ask for the same few dozen tags all the time
def _is_path(tag: str) -> bool:
    """Whether `tag` is more than a (namespaced) name: a path or a pattern for lxml's find."""
    return "/" in tag or "[" in tag or tag[:1] in (".", "*") or "{*}" in tag


def fragment(xml: str) -> etree._Element:
    """An element this package serialised (a kept one, model.Extension), parsed as documents are."""
    return etree.fromstring(xml, etree.XMLParser(**_PARSER_OPTIONS))


def shown_tag(el: etree._Element) -> str:
    """An element's tag as its file writes it (`t:custom`, not `{urn:t}custom`), for messages and kept elements."""
    if el.tag[0] != "{":  # the common case, without building a QName
        return el.tag
    q = etree.QName(el)
    return f"{el.prefix}:{q.localname}" if el.prefix else q.localname


def shown_attribute(el: etree._Element, key: str) -> str:
    """An attribute's name as its file writes it (`t:custom`, not `{urn:t}custom`), as shown_tag does for elements."""
    if key[0] != "{":
        return key
    q = etree.QName(key)
    prefix = next((p for p, uri in el.nsmap.items() if uri == q.namespace and p), None)
    return f"{prefix}:{q.localname}" if prefix else q.localname


def attribute_prefixes(extensions, fmt: str) -> dict[str, str]:
    """The prefixes of the namespaces of kept attributes (model.Extension) of format `fmt`, to declare on the
    root (else lxml makes an ns0 on each element), in an order and with names that a reload gives again:
    sorted, and a prefix the source used for two namespaces numbered for the second."""
    uris: dict[str, str] = {}  # uri -> prefix
    for e in extensions:
        if e.attributes and e.format == fmt and "xmlns:" in e.xml:
            el = fragment(e.xml)
            used = {k[1:k.index("}")] for k, _ in el.items() if k[0] == "{"}  # (not the element's own namespace)
            for prefix, uri in el.nsmap.items():
                if prefix is not None and uri in used:
                    uris.setdefault(uri, prefix)
    nsmap: dict[str, str] = {}
    for uri, prefix in sorted(uris.items(), key=lambda pu: (pu[1], pu[0])):
        name, n = prefix, 1
        while name in nsmap:
            name, n = f"{prefix}{n}", n + 1
        nsmap[name] = uri
    return dict(sorted(nsmap.items()))


def find_child(el: etree._Element, tag: str) -> etree._Element | None:
    """`el.find(tag)`: the first child element `tag`.  For a plain (or {namespace}) tag the children
    are compared in a loop, at under half the cost of find or iterchildren(tag), which both build a
    matcher per call (a SKEL body or an SDF link asks for some twenty children); a path goes to find."""
    if _is_path(tag):
        return el.find(tag)
    for child in el:
        if child.tag == tag:
            return child
    return None


def first_children(el: etree._Element) -> dict[str, etree._Element]:
    """The first child of each tag (what `find` returns for it), in one pass: lxml's find builds a matcher per
    call (a few microseconds), and a reader asks an element for several tags (a 100,000-link URDF makes
    millions of such questions)."""
    out: dict[str, etree._Element] = {}
    for child in el:
        tag = child.tag
        if tag not in out:
            out[tag] = child
    return out


def find_children(el: etree._Element, tag: str) -> list[etree._Element]:
    """`el.findall(tag)`, the same way as find_child."""
    if _is_path(tag):
        return el.findall(tag)
    # iterchildren compares the tags in C (a robot's or a skeleton's hundreds of children make no Python string)
    # but builds a matcher per call, which costs more than the loop below up to about six children
    return list(el.iterchildren(tag)) if len(el) > 6 else [child for child in el if child.tag == tag]


def describe(el: etree._Element) -> str:
    name, tag = el.get("name"), shown_tag(el) if isinstance(el.tag, str) else el.tag
    return f"<{tag} name='{name}'>" if name is not None else f"<{tag}>"


class XmlReader:
    """Reads typed values from elements, raising ModelError that point at the element."""

    def __init__(self, source: str | None) -> None:
        self.source = source
        # each <pose> element's transform, once per document: SDF checks every value first, then its
        # frame graph reads the same poses again
        self.pose_transforms: dict[etree._Element, np.ndarray] = {}

    def other_attributes(self, el: etree._Element) -> None:
        """Called where `el` has attributes besides those read: a reader that keeps them (URDF) takes note."""

    def error(self, el: etree._Element | None, message: str) -> ModelError:
        if el is None:
            return ModelError(message, source=self.source)
        return ModelError(message, source=self.source, line=el.sourceline, element=describe(el))

    def text(self, el: etree._Element) -> str:
        return (el.text or "").strip()

    def required(self, el: etree._Element, attr: str) -> str:
        value = el.get(attr)
        if value is not None:
            value = value.strip()
            if value:
                return value
        raise self.error(el, f"missing required attribute '{attr}'")

    def floats_list(self, el: etree._Element, raw: str, what: str, n: int | None) -> list[float]:
        """Parse numbers into a plain list: the hot path of every loader, so no numpy here."""
        try:
            values = xml_doubles(raw)
        except NumberError as e:
            raise self.number_error(el, raw, what, e) from None
        if n is not None and len(values) != n:
            raise self.error(el, f"{what} needs {n} number{'s' * (n != 1)}, got {len(values)} ('{show(raw.strip())}')")
        return values

    def number_error(self, el: etree._Element, raw: str, what: str, e: NumberError) -> ModelError:
        """The message of a refused number: which value, and why (see formats/numbers.py)."""
        shown = show(raw.strip())
        if e.kind == "range":
            head = f"{what} must be finite, got '{shown}'"
        else:
            head = f"{what} must be numbers, got '{shown}'"
        if e.token.strip() != raw.strip():
            head += f" ('{show(e.token)}' {e.reason})"
        elif e.kind != "range" or "finite" not in e.reason:
            head += f" (it {e.reason})"
        return self.error(el, head)

    def int_attr(self, el: etree._Element, attr: str, default: int | None = None, lo: int = INT_MIN,
                 hi: int = INT_MAX) -> int:
        raw = el.get(attr)
        if raw is None:
            if default is None:
                raise self.error(el, f"missing required attribute '{attr}'")
            return default
        try:
            return xml_int(raw, lo, hi)
        except NumberError as e:
            raise self.error(el, f"attribute '{attr}' must be an integer, got '{show(raw.strip())}' "
                                 f"('{show(e.token)}' {e.reason})") from None

    def _floats(self, el: etree._Element, raw: str, what: str, n: int | None) -> np.ndarray:
        return np.array(self.floats_list(el, raw, what, n), dtype=float)

    def floats_attr(self, el: etree._Element, attr: str, n: int | None = 3, default=None) -> np.ndarray:
        raw = el.get(attr)
        if raw is None:
            if default is None:
                raise self.error(el, f"missing required attribute '{attr}'")
            return np.array(default, dtype=float)
        return self._floats(el, raw, f"attribute '{attr}'", n)

    def float_attr(self, el: etree._Element, attr: str, default: float | None = None) -> float:
        return self.float_value(el, el.get(attr), attr, default)

    def float_value(self, el: etree._Element, raw: str | None, attr: str, default: float | None = None) -> float:
        """float_attr of the attribute's value `raw` (None: not there), for a reader that has it already."""
        if raw is None:
            if default is None:
                raise self.error(el, f"missing required attribute '{attr}'")
            return float(default)
        # the hot path, inlined: ASCII text without '_' is an XML Schema double exactly when float()
        # reads it and it is finite (see numbers.xml_doubles); anything else gets the full check
        if len(raw) <= MAX_NUMBER_CHARS and raw.isascii() and "_" not in raw:
            try:
                v = float(raw)
            except ValueError:
                pass
            else:
                if v - v == 0.0:
                    return v
        return self.floats_list(el, raw, f"attribute '{attr}'", 1)[0]

    def float_attrs(self, el: etree._Element, attrs: tuple[str, ...], default: float) -> list[float]:
        """float_attr of each attribute in turn (same values, same first error), in one conversion when
        all are present and plain: a URDF <inertia> has six, on every link."""
        keys = el.keys()
        # attributes written in the order asked (as exporters write an <inertia>) come in one lxml call
        if len(keys) == len(attrs) and tuple(keys) == attrs:
            raw = el.values()
        else:
            raw = [el.get(a) for a in attrs]
            if len(keys) > len(attrs) - raw.count(None):
                self.other_attributes(el)
        if None not in raw:
            joined = "".join(raw)  # the checks of float_attr's hot path, for all values at once
            if len(joined) <= MAX_NUMBER_CHARS and joined.isascii() and "_" not in joined:
                try:  # each value on its own: float() refuses "" and "1 2"
                    v = list(map(float, raw))
                except ValueError:
                    pass
                else:
                    if sum(v) * 0.0 == 0.0:  # all finite (and their sum: else checked one by one)
                        return v
        return [self.float_attr(el, a, default) for a in attrs]

    def floats_text(self, el: etree._Element, n: int | None = None) -> np.ndarray:
        return np.array(self.text_numbers(el, n), dtype=float)

    def float_text(self, el: etree._Element) -> float:
        return self.text_numbers(el, 1)[0]

    def text_numbers(self, el: etree._Element, n: int | None = None) -> list[float]:
        """The numbers of `el`'s text (`n` of them when given), the hot path of SKEL and SDFormat, which hold
        their numbers in text: the message naming the element is made only for a text that is refused, by
        floats_list (a reader's floats_list, such as SdfXmlReader's memo, is not asked for plain numbers;
        xml_doubles gives it the same values)."""
        raw = el.text or ""
        try:
            values = xml_doubles(raw)
        except NumberError:
            values = None
        if values is None or (n is not None and len(values) != n):
            values = self.floats_list(el, raw, f"<{el.tag}> value", n)  # (raises, naming the element)
        return values

    def bool_text(self, el: etree._Element) -> bool:
        return self.parse_bool(el, self.text(el), f"<{el.tag}>")

    def parse_bool(self, el: etree._Element, raw: str, what: str) -> bool:
        """`raw` (the text or an attribute of `el`, named `what` in the message) as a boolean: true/false/1/0."""
        value = raw.strip().lower()
        if value in ("1", "true"):
            return True
        if value in ("0", "false"):
            return False
        raise self.error(el, f"{what} must be true/false/1/0, got '{value}'")
