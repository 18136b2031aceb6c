import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { Long } from '@grpc/proto-loader';
/**
 * GetServerInfoResponse describes the serving process.
 */
export interface GetServerInfoResponse {
    /**
     * The service's name, "maka-kernel".
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
     * The backend a session created without one gets ("shell", "scripted" or "llm").
     */
    'defaultBackend'?: (string);
    /**
     * The resource service the kernel runs tools on (HOST:PORT).
     */
    'resourceAddress'?: (string);
    /**
     * How callers are authenticated: "token" (bearer tokens over plaintext on loopback),
     * "tls+token" (TLS, bearer tokens), "mtls+token" (TLS with client certificates, or tokens), or
     * "insecure-listen" appended ("token,insecure-listen") when --allow-insecure-listen let a
     * plaintext listener bind a non-loopback address.
     */
    'authMode'?: (string);
    /**
     * The caller's own principal as this server authenticated it (its id, e.g. "local" for the
     * local credential); set by the server for the caller only, never another principal's.
     */
    'principal'?: (string);
    /**
     * The roles of the caller's principal ("admin", "kernel", "client"), sorted; set by the server.
     */
    'principalRoles'?: (string)[];
}
/**
 * GetServerInfoResponse describes the serving process.
 */
export interface GetServerInfoResponse__Output {
    /**
     * The service's name, "maka-kernel".
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
     * The backend a session created without one gets ("shell", "scripted" or "llm").
     */
    'defaultBackend': (string);
    /**
     * The resource service the kernel runs tools on (HOST:PORT).
     */
    'resourceAddress': (string);
    /**
     * How callers are authenticated: "token" (bearer tokens over plaintext on loopback),
     * "tls+token" (TLS, bearer tokens), "mtls+token" (TLS with client certificates, or tokens), or
     * "insecure-listen" appended ("token,insecure-listen") when --allow-insecure-listen let a
     * plaintext listener bind a non-loopback address.
     */
    'authMode': (string);
    /**
     * The caller's own principal as this server authenticated it (its id, e.g. "local" for the
     * local credential); set by the server for the caller only, never another principal's.
     */
    'principal': (string);
    /**
     * The roles of the caller's principal ("admin", "kernel", "client"), sorted; set by the server.
     */
    'principalRoles': (string)[];
}
