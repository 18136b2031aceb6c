import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { SandboxCapabilities as _maka_resource_v1_SandboxCapabilities, SandboxCapabilities__Output as _maka_resource_v1_SandboxCapabilities__Output } from '../../../maka/resource/v1/SandboxCapabilities.js';
import type { Long } from '@grpc/proto-loader';
/**
 * GetServerInfoResponse describes the serving process.
 */
export interface GetServerInfoResponse {
    /**
     * The service's name, "maka-resource".
     */
    'service'?: (string);
    /**
     * The package version of the running code.
     */
    'version'?: (string);
    /**
     * The address the server is bound to, as HOST:PORT with the real port.
     */
    'listenAddress'?: (string);
    /**
     * The absolute path of the data directory this process owns.
     */
    'dataDir'?: (string);
    /**
     * When the process started serving.
     */
    'startedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * True once a shutdown has begun: new work is refused.
     */
    'draining'?: (boolean);
    /**
     * The operating-system process id of the server.
     */
    'pid'?: (number | string | Long);
    /**
     * True when the service admits any well-formed session id (started with --standalone);
     * false when only sessions registered with RegisterSession are admitted.
     */
    'standalone'?: (boolean);
    /**
     * How callers are authenticated: "token" (bearer tokens over plaintext on loopback),
     * "tls+token" (TLS, bearer tokens), "mtls+token" (TLS with client certificates, or tokens), or
     * "insecure-listen" appended ("token,insecure-listen") when --allow-insecure-listen let a
     * plaintext listener bind a non-loopback address.
     */
    'authMode'?: (string);
    /**
     * What the service can enforce: the sandbox (bubblewrap) and run containment (cgroups).
     */
    'sandbox'?: (_maka_resource_v1_SandboxCapabilities | null);
    /**
     * The caller's own principal as this server authenticated it (its id, e.g. "local" for the
     * local credential, "kernel-link" for the kernel's certificate); set by the server for the
     * caller only, never another principal's.
     */
    'principal'?: (string);
    /**
     * The roles of the caller's principal ("admin", "kernel", "operator", "client"), sorted; set
     * by the server.
     */
    'principalRoles'?: (string)[];
}
/**
 * GetServerInfoResponse describes the serving process.
 */
export interface GetServerInfoResponse__Output {
    /**
     * The service's name, "maka-resource".
     */
    'service': (string);
    /**
     * The package version of the running code.
     */
    'version': (string);
    /**
     * The address the server is bound to, as HOST:PORT with the real port.
     */
    'listenAddress': (string);
    /**
     * The absolute path of the data directory this process owns.
     */
    'dataDir': (string);
    /**
     * When the process started serving.
     */
    'startedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * True once a shutdown has begun: new work is refused.
     */
    'draining': (boolean);
    /**
     * The operating-system process id of the server.
     */
    'pid': (string);
    /**
     * True when the service admits any well-formed session id (started with --standalone);
     * false when only sessions registered with RegisterSession are admitted.
     */
    'standalone': (boolean);
    /**
     * How callers are authenticated: "token" (bearer tokens over plaintext on loopback),
     * "tls+token" (TLS, bearer tokens), "mtls+token" (TLS with client certificates, or tokens), or
     * "insecure-listen" appended ("token,insecure-listen") when --allow-insecure-listen let a
     * plaintext listener bind a non-loopback address.
     */
    'authMode': (string);
    /**
     * What the service can enforce: the sandbox (bubblewrap) and run containment (cgroups).
     */
    'sandbox': (_maka_resource_v1_SandboxCapabilities__Output | null);
    /**
     * The caller's own principal as this server authenticated it (its id, e.g. "local" for the
     * local credential, "kernel-link" for the kernel's certificate); set by the server for the
     * caller only, never another principal's.
     */
    'principal': (string);
    /**
     * The roles of the caller's principal ("admin", "kernel", "operator", "client"), sorted; set
     * by the server.
     */
    'principalRoles': (string)[];
}
