"""Facts: what is true of the host, probed once per run and shared by all checks.

Every fact is declared once, as a typed attribute of :class:`Facts` (that class body is the
registry of facts): ``stack: Fact[StackFacts] = Fact("ascend_doctor.facts.stack")`` says that
``facts.stack`` is a ``StackFacts`` computed by the function ``stack`` of that module. The module
is imported only when the fact is first asked for, which keeps ``check`` start-up fast. The types
themselves live in ``ascend_doctor.facts.records`` (one module per provider module): a record never
imports this registry, so the registry names every type without an import circle.

A provider probes through ``facts.host`` (never directly), hands the text to a pure parser from
``ascend_doctor.parsers`` and returns a typed record. It declares what it reads with
``@provider("name", reads=Reads(...))``; ``snapshot`` captures exactly the union of those
declarations (see ``ascend_doctor/capture``). Results are memoised, so ten checks asking for
``npu_smi`` run ``npu-smi info`` once. A provider that raises has its exception memoised too:
every asker gets the same exception (``FactUnavailable`` becomes SKIP for a check that needs the
fact, anything else an ERROR for that check only).

Checks read facts as attributes (``ctx.facts.stack``, raising when unavailable) or with
``ctx.facts.maybe(Facts.container)`` (None when unavailable).
"""

from __future__ import annotations

import importlib
import threading
from typing import (
    TYPE_CHECKING,
    Callable,
    Dict,
    Generic,
    List,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    cast,
    overload,
)

from ascend_doctor.facts.reads import Reads
from ascend_doctor.host.base import CommandResult, Host
from ascend_doctor.options import RunOptions

if TYPE_CHECKING:
    from ascend_doctor.facts.records import ChipSummary
    from ascend_doctor.facts.records.engines import EnginesFacts, KernelsFacts, MindieFacts, NnalFacts, TorchAbi
    from ascend_doctor.facts.records.environment import AscendEnv
    from ascend_doctor.facts.records.file_modes import FileModes
    from ascend_doctor.facts.records.logs import DmesgScan, LogFilesScan
    from ascend_doctor.facts.records.mindie_env import MindieEnv
    from ascend_doctor.facts.records.model import ManifestCheck
    from ascend_doctor.facts.records.network import HccnConfFacts, HccnFacts
    from ascend_doctor.facts.records.npu import NpuBoards
    from ascend_doctor.facts.records.npu_ecc import NpuEcc
    from ascend_doctor.facts.records.npu_views import NpuChipNames, NpuChipReadings, NpuHealthStates, NpuIds
    from ascend_doctor.facts.records.ranktable import RankTableFacts
    from ascend_doctor.facts.records.resources import HostResources
    from ascend_doctor.facts.records.running import RunningStack
    from ascend_doctor.facts.records.scope import NpuScope
    from ascend_doctor.facts.records.serving import PlanModel, WeightDir
    from ascend_doctor.facts.records.serving_mounts import ServingMounts
    from ascend_doctor.facts.records.stack import StackFacts
    from ascend_doctor.facts.records.system import ContainerInfo, DeviceNodes, VisibleDevices
    from ascend_doctor.facts.records.vllm_build import VllmAscendBuild
    from ascend_doctor.host.base import HostInfo, ListeningSocket, ProcessInfo, PythonEnv
    from ascend_doctor.matrix.model import Matrix
    from ascend_doctor.model.records import ModelFacts
    from ascend_doctor.parsers.id_output import IdInfo
    from ascend_doctor.parsers.npu_smi import NpuSmiInfo
    from ascend_doctor.parsers.npu_smi_views import NpuMapping
    from ascend_doctor.parsers.serving_config import ServingConfig

T = TypeVar("T")
# Fact is covariant: a Fact[Dict[str, str]] may be read where a Fact[Mapping[str, str]] is asked for
# (it is only ever read, never written through).
T_co = TypeVar("T_co", covariant=True)
ProviderFunc = Callable[["Facts"], object]  # the value of its Fact[T]: a T

__all__ = ["Fact", "FactUnavailable", "Facts", "Reads", "UnknownFact", "every_fact", "provider"]


def provider(name: str, reads: Optional[Reads] = None) -> Callable[[ProviderFunc], ProviderFunc]:
    """Mark a function as the provider of fact ``name`` and declare what it reads from the host.

    The function must be named like the fact and live in the module its ``Fact`` declaration
    names; the decorator only attaches the declaration (nothing is registered as a side effect).
    """

    def mark(func: ProviderFunc) -> ProviderFunc:
        if func.__name__ != name:
            raise RuntimeError(f"provider {func.__module__}.{func.__name__} must be named {name!r}")
        func.__dict__["fact_reads"] = reads or Reads()
        return func

    return mark


class UnknownFact(KeyError):
    pass


class FactUnavailable(Exception):
    """A fact that cannot be established on this host (not a bug): e.g. npu-smi is absent.

    The runner turns it into SKIP for a check that did not catch it.
    """

    def __init__(self, reason: str, detail: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class Fact(Generic[T_co]):
    """The declaration of one fact: read on an instance it is the value, on the class the key.

    A fact may also be declared outside :class:`Facts`, next to its provider (a new built-in fact, or a
    plugin's): ``NUMA_BALANCING: Fact[int] = Fact(__name__, "numa_balancing")``, read with
    ``ctx.facts.value(NUMA_BALANCING)``. Such a fact is memoised under its module-qualified name, so it
    never shares a value with another module's fact of the same name.
    """

    __slots__ = ("key", "module", "name")

    def __init__(self, module: str, name: str = "") -> None:
        self.module = module
        self.name = name
        self.key = f"{module}.{name}" if name else ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = self.key = name

    @overload
    def __get__(self, obj: None, owner: type) -> Fact[T_co]: ...

    @overload
    def __get__(self, obj: Facts, owner: type) -> T_co: ...

    def __get__(self, obj: Optional[Facts], owner: type) -> Union[Fact[T_co], T_co]:
        if obj is None:
            return self
        return obj.value(self)

    def provider(self) -> ProviderFunc:
        func: ProviderFunc = getattr(importlib.import_module(self.module), self.name)
        return func

    def reads(self) -> Reads:
        declared = getattr(self.provider(), "fact_reads", None)
        return declared if isinstance(declared, Reads) else Reads()

    def __repr__(self) -> str:
        return f"Fact({self.name!r} from {self.module})"


class Facts:
    """Memoised access to facts about one host for one run.

    The attributes below are the registry of facts: name, type and the module providing it.
    """

    # npu-smi
    npu_smi_result: Fact[CommandResult] = Fact("ascend_doctor.facts.npu")
    npu_smi: Fact[NpuSmiInfo] = Fact("ascend_doctor.facts.npu")
    npu_chip: Fact[Optional[ChipSummary]] = Fact("ascend_doctor.facts.npu")
    npu_boards: Fact[NpuBoards] = Fact("ascend_doctor.facts.npu")
    npu_ecc: Fact[NpuEcc] = Fact("ascend_doctor.facts.npu_ecc")
    npu_mapping: Fact[NpuMapping] = Fact("ascend_doctor.facts.npu_views")
    npu_ids: Fact[NpuIds] = Fact("ascend_doctor.facts.npu_views")
    npu_chip_names: Fact[NpuChipNames] = Fact("ascend_doctor.facts.npu_views")
    npu_health_states: Fact[NpuHealthStates] = Fact("ascend_doctor.facts.npu_views")
    npu_chip_readings: Fact[NpuChipReadings] = Fact("ascend_doctor.facts.npu_views")
    npu_scope: Fact[NpuScope] = Fact("ascend_doctor.facts.scope")
    running_stack: Fact[RunningStack] = Fact("ascend_doctor.facts.running")
    # installed software
    stack: Fact[StackFacts] = Fact("ascend_doctor.facts.stack")
    python_env: Fact[PythonEnv] = Fact("ascend_doctor.facts.stack")
    env: Fact[Dict[str, str]] = Fact("ascend_doctor.facts.stack")
    host_info: Fact[HostInfo] = Fact("ascend_doctor.facts.stack")
    ascend_env: Fact[AscendEnv] = Fact("ascend_doctor.facts.environment")
    kernels: Fact[KernelsFacts] = Fact("ascend_doctor.facts.engines")
    nnal: Fact[NnalFacts] = Fact("ascend_doctor.facts.engines")
    mindie: Fact[MindieFacts] = Fact("ascend_doctor.facts.engines")
    mindie_env: Fact[MindieEnv] = Fact("ascend_doctor.facts.mindie_env")
    engines: Fact[EnginesFacts] = Fact("ascend_doctor.facts.engines")
    torch_abi: Fact[TorchAbi] = Fact("ascend_doctor.facts.engines")
    vllm_ascend_build: Fact[VllmAscendBuild] = Fact("ascend_doctor.facts.vllm_build")
    # the machine
    device_nodes: Fact[DeviceNodes] = Fact("ascend_doctor.facts.system")
    container: Fact[ContainerInfo] = Fact("ascend_doctor.facts.system")
    visible_devices: Fact[VisibleDevices] = Fact("ascend_doctor.facts.system")
    mount_paths: Fact[Dict[str, bool]] = Fact("ascend_doctor.facts.system")
    processes: Fact[Optional[List[ProcessInfo]]] = Fact("ascend_doctor.facts.system")
    serving_mounts: Fact[ServingMounts] = Fact("ascend_doctor.facts.serving_mounts")
    run_user: Fact[IdInfo] = Fact("ascend_doctor.facts.users")
    resources: Fact[HostResources] = Fact("ascend_doctor.facts.resources")
    # logs
    dmesg: Fact[DmesgScan] = Fact("ascend_doctor.facts.logs")
    log_files: Fact[LogFilesScan] = Fact("ascend_doctor.facts.logs")
    # the NPU network (hccn_tool per device, /etc/hccn.conf) and the rank table (--rank-table, RANK_TABLE_FILE)
    hccn: Fact[HccnFacts] = Fact("ascend_doctor.facts.network")
    hccn_conf: Fact[HccnConfFacts] = Fact("ascend_doctor.facts.network")
    rank_table: Fact[RankTableFacts] = Fact("ascend_doctor.facts.ranktable")
    # inputs given on the command line (--model, --verify, --config, --vllm-args)
    model: Fact[ModelFacts] = Fact("ascend_doctor.facts.model")
    model_manifest_check: Fact[ManifestCheck] = Fact("ascend_doctor.facts.model")
    serving_config: Fact[ServingConfig] = Fact("ascend_doctor.facts.serving")
    serving_weight_dirs: Fact[List[WeightDir]] = Fact("ascend_doctor.facts.serving")
    listening_sockets: Fact[List[ListeningSocket]] = Fact("ascend_doctor.facts.serving")
    plan_model: Fact[PlanModel] = Fact("ascend_doctor.facts.serving")
    file_modes: Fact[FileModes] = Fact("ascend_doctor.facts.file_modes")

    def __init__(self, host: Host, options: Optional[RunOptions] = None) -> None:
        self.host = host
        self.options = options or RunOptions()
        # The matrix is used by providers only to *name* things (chip family), never to judge; a run
        # sets it (runner.py), a provider asked without one names from the chip patterns alone.
        self.matrix: Optional[Matrix] = None
        # name -> (the provider's exception, None) or (None, the value): a failure is memoised too
        self._values: Dict[str, Tuple[Optional[Exception], object]] = {}
        self._commands: Dict[Tuple[str, ...], CommandResult] = {}
        self._lock = threading.RLock()

    # -- the registry ------------------------------------------------------------------------
    @classmethod
    def declared(cls) -> Dict[str, Fact[object]]:
        """Every declared fact by name."""
        return {name: value for klass in reversed(cls.__mro__) for name, value in vars(klass).items()
                if isinstance(value, Fact)}

    # -- commands ----------------------------------------------------------------------
    def command(self, argv: Sequence[str]) -> CommandResult:
        """Run a command once per run (through the host) and remember its result."""
        key = tuple(argv)
        with self._lock:
            cached = self._commands.get(key)
        if cached is not None:
            return cached
        result = self.host.run(key, timeout=self.options.timeout_s)
        with self._lock:
            self._commands.setdefault(key, result)
            return self._commands[key]

    def prefetch_commands(self, commands: Sequence[Sequence[str]]) -> None:
        """Run independent commands concurrently so a slow one does not serialise the rest."""
        todo = [tuple(c) for c in commands if tuple(c) not in self._commands]
        if not todo:
            return
        results = self.host.run_many(todo, timeout=self.options.timeout_s)
        with self._lock:
            for argv, result in zip(todo, results):
                self._commands.setdefault(argv, result)

    def commands_run(self) -> List[CommandResult]:
        with self._lock:
            return list(self._commands.values())

    # -- facts ---------------------------------------------------------------------------
    def seed(self, **values: object) -> None:
        """Give facts their values without running their providers (tests; imported text)."""
        declared = self.declared()
        with self._lock:
            for name, value in values.items():
                if name not in declared:
                    raise UnknownFact(name)
                self._values[name] = (None, value)

    def value(self, fact: Fact[T]) -> T:
        """The value of a fact; re-raises the provider's exception if it failed."""
        name = fact.key
        with self._lock:
            stored = self._values.get(name)
        if stored is None:
            try:
                computed = fact.provider()(self)
            except Exception as exc:  # memoise the failure: the same error for every asker
                with self._lock:
                    self._values.setdefault(name, (exc, None))
                raise
            with self._lock:  # another thread may have stored it meanwhile: the first one counts
                stored = self._values.setdefault(name, (None, computed))
        error, value = stored
        if error is not None:
            raise error
        return cast(T, value)  # stored by this method for this fact (or seeded under its name), so of its type

    def maybe(self, fact: Fact[T]) -> Optional[T]:
        """The value of a fact, or None when its provider failed."""
        try:
            return self.value(fact)
        except Exception:
            return None

    def computed(self, fact: Fact[T]) -> Optional[T]:
        """The value of a fact this run has already computed, else None: never runs its provider
        (a summary that shows what was asked, and asks nothing more)."""
        with self._lock:
            stored = self._values.get(fact.key)
        if stored is None or stored[0] is not None:
            return None
        return cast(T, stored[1])  # stored by value() for this fact, so of its type

    def known(self) -> Dict[str, object]:
        """Facts computed so far (successful ones only)."""
        with self._lock:
            return {k: v for k, (error, v) in self._values.items() if error is None}


def provider_names() -> List[str]:
    return sorted(Facts.declared())


def every_fact(modules: Sequence[str] = ()) -> Dict[str, Fact[object]]:
    """Every fact by key: the attributes of :class:`Facts`, and the facts declared next to their
    providers (``Fact(__name__, "name")``) in the modules of this package and in ``modules`` (a
    plugin's check modules: the facts they import count). Imports all those modules: for the
    capture and the tests, never on a check's path."""
    import pkgutil

    found: Dict[str, Fact[object]] = dict(Facts.declared())
    names = [f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)] + list(modules)
    for name in names:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, Fact) and value.key and value.key not in found:
                found[value.key] = value
    return found
