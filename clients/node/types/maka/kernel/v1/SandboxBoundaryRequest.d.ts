import type { BoundaryExpansion as _maka_resource_v1_BoundaryExpansion, BoundaryExpansion__Output as _maka_resource_v1_BoundaryExpansion__Output } from '../../../maka/resource/v1/BoundaryExpansion.js';
import type { Long } from '@grpc/proto-loader';
/**
 * SandboxBoundaryRequest asks permission to cross the sandbox boundary; answer it with
 * RespondToSandboxBoundary.
 */
export interface SandboxBoundaryRequest {
    /**
     * The request id.
     */
    'requestId'?: (string);
    /**
     * What the agent wants to run.
     */
    'command'?: (string);
    /**
     * Where it would run.
     */
    'cwd'?: (string);
    /**
     * Why the agent asks.
     */
    'reason'?: (string);
    /**
     * The expansion of the session's boundary the command needs (file-system entries and/or the
     * network); unset for a per-command approval that widens nothing. allow_once grants it to
     * the next run of this call only, allow_session adds it to the session's boundary (a new
     * revision), deny grants nothing.
     */
    'expansion'?: (_maka_resource_v1_BoundaryExpansion | null);
    /**
     * Why the agent needs the expansion (its own words, at most 4096 bytes).
     */
    'justification'?: (string);
    /**
     * The revision of the session's boundary the request was computed against.
     */
    'baseRevision'?: (number | string | Long);
}
/**
 * SandboxBoundaryRequest asks permission to cross the sandbox boundary; answer it with
 * RespondToSandboxBoundary.
 */
export interface SandboxBoundaryRequest__Output {
    /**
     * The request id.
     */
    'requestId': (string);
    /**
     * What the agent wants to run.
     */
    'command': (string);
    /**
     * Where it would run.
     */
    'cwd': (string);
    /**
     * Why the agent asks.
     */
    'reason': (string);
    /**
     * The expansion of the session's boundary the command needs (file-system entries and/or the
     * network); unset for a per-command approval that widens nothing. allow_once grants it to
     * the next run of this call only, allow_session adds it to the session's boundary (a new
     * revision), deny grants nothing.
     */
    'expansion': (_maka_resource_v1_BoundaryExpansion__Output | null);
    /**
     * Why the agent needs the expansion (its own words, at most 4096 bytes).
     */
    'justification': (string);
    /**
     * The revision of the session's boundary the request was computed against.
     */
    'baseRevision': (string);
}
