import type { Containment as _maka_resource_v1_Containment, Containment__Output as _maka_resource_v1_Containment__Output } from '../../../maka/resource/v1/Containment.js';
/**
 * SandboxCapabilities is what the resource service can enforce on this host, as its start-up
 * probes found it (GetServerInfo).
 */
export interface SandboxCapabilities {
    /**
     * True when bubblewrap is present and can create the sandbox's namespaces. When false, every
     * run whose profile needs the sandbox is refused: FAILED_PRECONDITION / SANDBOX_UNAVAILABLE.
     */
    'sandboxAvailable'?: (boolean);
    /**
     * Why the sandbox is unavailable, with how to install it; empty when available.
     */
    'sandboxUnavailableReason'?: (string);
    /**
     * The bubblewrap executable in use (absolute path); empty when none was found.
     */
    'bwrapPath'?: (string);
    /**
     * Its version, e.g. "0.8.0".
     */
    'bwrapVersion'?: (string);
    /**
     * How runs are contained: CGROUP, or PROCESS_GROUP when no cgroup can be made.
     */
    'containment'?: (_maka_resource_v1_Containment);
    /**
     * Why runs fall back to their process group; empty with cgroups.
     */
    'containmentReason'?: (string);
    /**
     * The cgroup v2 directory holding the runs' cgroups; empty without cgroups.
     */
    'cgroupRoot'?: (string);
    /**
     * The cgroup controllers the runs' cgroups have ("pids", "memory"); per-run limits need them.
     */
    'cgroupControllers'?: (string)[];
    /**
     * Configured per-run limits (--run-pids-max, --run-memory-max) this host cannot enforce, and
     * why; empty when every configured limit applies.
     */
    'unenforcedLimits'?: (string)[];
}
/**
 * SandboxCapabilities is what the resource service can enforce on this host, as its start-up
 * probes found it (GetServerInfo).
 */
export interface SandboxCapabilities__Output {
    /**
     * True when bubblewrap is present and can create the sandbox's namespaces. When false, every
     * run whose profile needs the sandbox is refused: FAILED_PRECONDITION / SANDBOX_UNAVAILABLE.
     */
    'sandboxAvailable': (boolean);
    /**
     * Why the sandbox is unavailable, with how to install it; empty when available.
     */
    'sandboxUnavailableReason': (string);
    /**
     * The bubblewrap executable in use (absolute path); empty when none was found.
     */
    'bwrapPath': (string);
    /**
     * Its version, e.g. "0.8.0".
     */
    'bwrapVersion': (string);
    /**
     * How runs are contained: CGROUP, or PROCESS_GROUP when no cgroup can be made.
     */
    'containment': (_maka_resource_v1_Containment__Output);
    /**
     * Why runs fall back to their process group; empty with cgroups.
     */
    'containmentReason': (string);
    /**
     * The cgroup v2 directory holding the runs' cgroups; empty without cgroups.
     */
    'cgroupRoot': (string);
    /**
     * The cgroup controllers the runs' cgroups have ("pids", "memory"); per-run limits need them.
     */
    'cgroupControllers': (string)[];
    /**
     * Configured per-run limits (--run-pids-max, --run-memory-max) this host cannot enforce, and
     * why; empty when every configured limit applies.
     */
    'unenforcedLimits': (string)[];
}
