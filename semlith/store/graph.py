"""`GraphStore`: the code graph's one door into a store (issues #22, #44).

Every read the graph makes at query time — the files an import can name, a file's
edges and definitions, the call sites of a name, the definitions a name has — is a
method here, answered by the SQL of `store/edges.py` and `store/names.py`. Code above
`store/` holds a `GraphStore` and never the catalog. Whether the store has edges at all
is stated (`has_edges`): a mirror (indexed by another machine) has none here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from semlith.ingest.graph.records import Call, FileEdges, Import, Inherit
from semlith.store import edges, names
from semlith.store.catalog import Catalog
from semlith.store.edges import CallSite, EdgeFile, GraphDef
from semlith.store.query import Selection

__all__ = ["CallSite", "EdgeFile", "GraphDef", "GraphStore"]


class GraphStore:
    """The graph's reads of one store's catalog."""

    def __init__(self, catalog: Catalog, *, has_edges: bool) -> None:
        self._catalog = catalog
        self.has_edges = has_edges  # False: a mirror, whose edges live where it is indexed

    def generation(self) -> int:
        """Moves with every committed change: a cached resolution is valid while it stands."""
        return self._catalog.generation()

    # -- files with edges ------------------------------------------------------------------

    def all_files(self) -> list[EdgeFile]:
        """Every file that has edges (benchmarks and tests walk them all; a question
        does not)."""
        return edges.edge_files(self._catalog)

    def files_by_id(self, ids: Iterable[int]) -> list[EdgeFile]:
        return edges.edge_files_by_id(self._catalog, ids)

    def files_at(self, paths: Iterable[str]) -> list[EdgeFile]:
        return edges.edge_files_at(self._catalog, paths)

    def files_in(self, folder: str) -> list[EdgeFile]:
        """The files with edges directly in `folder` ('' = the root)."""
        return edges.edge_files_in(self._catalog, folder)

    def files_named(self, file_names: Iterable[str]) -> list[EdgeFile]:
        """The files with edges whose own name (`models.py`) is one of `file_names`."""
        return edges.edge_files_named(self._catalog, file_names)

    def files_stemmed(self, stem: str) -> list[EdgeFile]:
        """The files with edges named `stem` and an extension."""
        return edges.edge_files_stemmed(self._catalog, stem)

    def files_in_folders_named(self, folder_names: Iterable[str]) -> list[EdgeFile]:
        """The files with edges whose folder's own name is one of `folder_names`."""
        return edges.edge_files_in_folders_named(self._catalog, folder_names)

    def files_under(self, folder: str, limit: int = 20) -> list[EdgeFile]:
        """Up to `limit` files with edges anywhere below `folder`."""
        return edges.edge_files_under(self._catalog, folder, limit)

    def files_of_package(self, package: str) -> list[EdgeFile]:
        """The files with edges that declare `package` (Go)."""
        return edges.edge_files_of_package(self._catalog, package)

    # -- edges ---------------------------------------------------------------------------

    def edges_of(self, file_ids: Sequence[int]) -> dict[int, FileEdges]:
        """The edges of several files, without their calls (what knowing a file needs)."""
        return edges.edges_of(self._catalog, file_ids)

    def file_edges(self, file_id: int) -> FileEdges:
        """The edges of one file, its calls too."""
        return edges.file_edges(self._catalog, file_id)

    def calls_named(self, call_names: Iterable[str], langs: Sequence[str] = ()
                    ) -> list[CallSite]:
        """Every call written with one of `call_names`, in files of `langs` if given."""
        return edges.calls_named(self._catalog, call_names, langs)

    def calls_from(self, file_id: int, caller: str) -> list[Call]:
        """The calls made directly inside definition `caller` of a file."""
        return edges.calls_from(self._catalog, file_id, caller)

    def inherits_named(self, name: str) -> list[tuple[int, Inherit]]:
        """(file id, record) of every base written as `name` or `x.name`."""
        return edges.inherits_named(self._catalog, name)

    def imports_named(self, name: str) -> list[tuple[int, Import]]:
        """(file id, record) of every import of a name `name`."""
        return edges.imports_named(self._catalog, name)

    # -- definitions -----------------------------------------------------------------------

    def definitions_named(self, name: str, langs: Sequence[str] = ()) -> list[GraphDef]:
        """Definitions whose simple name is `name` (case-sensitive), in files of `langs`."""
        return edges.definitions_named(self._catalog, name, langs)

    def definitions_of(self, file_ids: Sequence[int]) -> dict[int, list[GraphDef]]:
        """The definitions of each of several files, in line order."""
        return edges.definitions_of(self._catalog, file_ids)

    def definitions_selected(self, name: str, sel: Selection) -> list[GraphDef]:
        """Definitions named `name` (any case) in the files `sel` keeps."""
        return edges.definitions_selected(self._catalog, name, sel.where, sel.params)

    def names_near(self, parts: Sequence[str]) -> list[tuple[str, str]]:
        """(name, qualname) of definitions a name that is not defined may misspell."""
        return names.names_near(self._catalog, parts)

    def unread_files(self, langs: Sequence[str]) -> int:
        """Files of `langs` whose edges could not be extracted, or were cut short: calls
        from them are unknown, so a count of callers is a lower bound while any are."""
        return edges.unread_edge_files(self._catalog, langs)
