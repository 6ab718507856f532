"""Import contracts that see typing-only imports too (``lint-imports`` loads this: .importlinter
``contract_types``).

``.importlinter`` leaves imports under ``if TYPE_CHECKING:`` out of every contract
(``exclude_type_checking_imports``: they name a type for mypy and never run), and that setting is
one for the whole session. A circle of imports that closes only through such an import still
ties two modules together (neither can be read, moved or tested without the other), so the
contracts that keep a circle from coming back use ``forbidden_with_typing``: a forbidden
contract checked over a graph that includes the typing-only imports.
"""

from __future__ import annotations

from typing import Any

import grimp
from importlinter.contracts.forbidden import ForbiddenContract


class ForbiddenWithTypingContract(ForbiddenContract):
    """``forbidden``, over the import graph with the ``if TYPE_CHECKING:`` imports in it."""

    type_name = "forbidden_with_typing"

    def check(self, graph: Any, verbose: bool) -> Any:
        external = str(self.session_options.get("include_external_packages", "")).lower() == "true"
        # No cache: grimp's would be one more folder in the checkout, and the graph takes a second.
        with_typing = grimp.build_graph(*self.session_options["root_packages"], include_external_packages=external,
                                        exclude_type_checking_imports=False, cache_dir=None)
        return super().check(with_typing, verbose)
