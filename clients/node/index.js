// Node.js client for Maka Runtime: loads the contract at run time from the package's copy of
// the protos (protos/, made from the repository's protos/ by scripts/gen_protos.py) and exposes
// the stubs plus the google.rpc.ErrorInfo of failed calls. Their types: index.d.ts and types/.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';

const here = dirname(fileURLToPath(import.meta.url));
export const PROTO_ROOT = process.env.MAKA_PROTO_ROOT ?? join(here, 'protos');

const definition = protoLoader.loadSync(
  ['maka/kernel/v1/kernel.proto', 'maka/resource/v1/resource.proto'],
  {
    includeDirs: [PROTO_ROOT],
    keepCase: false,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  },
);
const loaded = grpc.loadPackageDefinition(definition);

/** gRPC status codes (grpc.status), e.g. `status.ABORTED`. */
export const status = grpc.status;

/** The kernel service stub constructor (maka.kernel.v1.KernelService). */
export const KernelService = loaded.maka.kernel.v1.KernelService;
/** The resource service stub constructor (maka.resource.v1.ResourceService). */
export const ResourceService = loaded.maka.resource.v1.ResourceService;

/**
 * The client side of the one keepalive policy of Maka Runtime (README section "Keepalive";
 * defined in clients/python/maka_runtime_client/keepalive.py): ping every 30 s, also with no call open,
 * and drop a connection whose ping is not answered within 20 s. The services accept pings as
 * often as every 10 s, so an idle stream (a turn waiting for an approval) stays up for hours.
 */
export const KEEPALIVE_OPTIONS = Object.freeze({
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.keepalive_permit_without_calls': 1,
});

/** The services' default data directory ($XDG_DATA_HOME or ~/.local/share, /maka-runtime). */
export function defaultDataDir() {
  const base = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'maka-runtime');
}

/**
 * The token a client sends: `options.token`, else $MAKA_TOKEN, else the local credential
 * DATA_DIR/credentials/local.token the services create on first start (DATA_DIR is
 * `options.dataDir`, else $MAKA_DATA_DIR, else defaultDataDir()), except for a client that
 * presents a certificate. Null when there is none.
 */
export function findToken(options = {}) {
  if (options.token) return options.token;
  if (process.env.MAKA_TOKEN) return process.env.MAKA_TOKEN;
  // A client certificate (mutual TLS) is the credential: the local one is not sent with it.
  if (options.tlsCert || process.env.MAKA_TLS_CERT) return null;
  const dir = options.dataDir || process.env.MAKA_DATA_DIR || defaultDataDir();
  try {
    return readFileSync(join(dir, 'credentials', 'local.token'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function bearer(token) {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        if (metadata.get('authorization').length === 0) {
          metadata.set('authorization', `Bearer ${token}`);
        }
        next(metadata, listener);
      },
    });
}

function channelCredentials(options) {
  const ca = options.tlsCa || process.env.MAKA_TLS_CA;
  const cert = options.tlsCert || process.env.MAKA_TLS_CERT;
  const key = options.tlsKey || process.env.MAKA_TLS_KEY;
  if (!ca && !cert) return grpc.credentials.createInsecure();
  return grpc.credentials.createSsl(
    ca ? readFileSync(ca) : null,
    key ? readFileSync(key) : null,
    cert ? readFileSync(cert) : null,
  );
}

/**
 * Connect to both services with KEEPALIVE_OPTIONS and a credential found by findToken(options).
 * TLS when `options.tlsCa` ($MAKA_TLS_CA) is set, with a client certificate from
 * `options.tlsCert`/`options.tlsKey` ($MAKA_TLS_CERT/$MAKA_TLS_KEY); plaintext otherwise.
 */
export function connect(kernelAddress, resourceAddress, options = {}) {
  const credentials = channelCredentials(options);
  const token = findToken(options);
  const settings = { ...KEEPALIVE_OPTIONS, ...(token ? { interceptors: [bearer(token)] } : {}) };
  return {
    kernel: new KernelService(kernelAddress, credentials, settings),
    resource: new ResourceService(resourceAddress, credentials, settings),
    close() {
      this.kernel.close();
      this.resource.close();
    },
  };
}

/**
 * The deadlines of calls that do not give their own, in milliseconds; change a field to change
 * every later call's. Unary calls get `unaryMs`. Streams that follow something live (a turn)
 * get `streamMs`, which is null, no deadline: a turn waiting for an approval is not stuck, and
 * a stream cancelled by its deadline makes the kernel stop the turn (as in the Python SDK).
 */
export const defaults = { unaryMs: 10_000, streamMs: null };

/** Call a unary method and get a promise. */
export function call(client, method, request, deadlineMs = defaults.unaryMs) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + deadlineMs }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

// google.rpc.Status with its ErrorInfo detail, declared inline (wire-compatible subset).
const rpcRoot = protobuf.Root.fromJSON({
  nested: {
    rpc: {
      nested: {
        Any: { fields: { typeUrl: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
        Status: {
          fields: {
            code: { type: 'int32', id: 1 },
            message: { type: 'string', id: 2 },
            details: { rule: 'repeated', type: 'Any', id: 3 },
          },
        },
        ErrorInfo: {
          fields: {
            reason: { type: 'string', id: 1 },
            domain: { type: 'string', id: 2 },
            metadata: { keyType: 'string', type: 'string', id: 3 },
          },
        },
      },
    },
  },
});
const Status = rpcRoot.lookupType('rpc.Status');
const ErrorInfo = rpcRoot.lookupType('rpc.ErrorInfo');

// The registry of ErrorInfo reasons: maka.common.v1.ErrorReason in
// protos/maka/common/v1/errors.proto, read at load time like the services' contract.
const reasonEnum = protobuf
  .loadSync(join(PROTO_ROOT, 'maka', 'common', 'v1', 'errors.proto'))
  .lookupEnum('maka.common.v1.ErrorReason');

/** The prefix of every registry value name; the reason string a service sends has none. */
export const REASON_PREFIX = 'ERROR_REASON_';

/**
 * A failed call refused for its credential, as an Error that says how to fix it (null for any
 * other failure): UNAUTHENTICATED (no or an unknown token) or PERMISSION_DENIED (a role missing).
 */
export function authError(error) {
  if (error?.code === grpc.status.UNAUTHENTICATED) {
    return new Error(
      `no valid credential: pass options.token or set MAKA_TOKEN, or use the local credential ` +
        `of the services' data directory (options.dataDir or MAKA_DATA_DIR): ${error.details}`,
      { cause: error },
    );
  }
  if (error?.code === grpc.status.PERMISSION_DENIED) {
    return new Error(`the credential lacks the role this call needs: ${error.details}`, {
      cause: error,
    });
  }
  return null;
}

/**
 * The ErrorInfo reason string of a registry value, given by its number or its enum name:
 * `reasonName('ERROR_REASON_OPERATION_CONFLICT')` is `'OPERATION_CONFLICT'`.
 */
export function reasonName(value) {
  const name = typeof value === 'number' ? reasonEnum.valuesById[value] : value;
  if (name === undefined || !(name in reasonEnum.values) || reasonEnum.values[name] === 0) {
    throw new RangeError(`not an error reason: ${value}`);
  }
  return name.slice(REASON_PREFIX.length);
}

/**
 * Every reason a Maka Runtime service may send, by name: `Reason.OPERATION_CONFLICT` is
 * `'OPERATION_CONFLICT'` (compare it with `errorInfo(error).reason`).
 */
export const Reason = Object.freeze(
  Object.fromEntries(
    Object.entries(reasonEnum.values)
      .filter(([, number]) => number !== 0)
      .map(([name]) => [reasonName(name), reasonName(name)]),
  ),
);

/** The google.rpc.ErrorInfo of a failed call as {reason, domain, metadata}, or null. */
export function errorInfo(error) {
  const raw = error?.metadata?.get('grpc-status-details-bin')?.[0];
  if (!raw) return null;
  const status = Status.decode(raw);
  for (const detail of status.details) {
    if (detail.typeUrl.endsWith('/google.rpc.ErrorInfo')) {
      return ErrorInfo.toObject(ErrorInfo.decode(detail.value), { defaults: true });
    }
  }
  return null;
}

/**
 * Read a server stream to its end: resolves with every message (in order) when the server
 * ends the stream, rejects with the call's error. `onMessage` (optional) sees each message as
 * it arrives; if it throws, the call is cancelled and the promise rejects with that error.
 */
export function collect(stream, onMessage) {
  return new Promise((resolve, reject) => {
    const messages = [];
    let settled = false;
    const fail = (error) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
    };
    stream.on('data', (message) => {
      if (settled) return;
      messages.push(message);
      try {
        onMessage?.(message);
      } catch (error) {
        fail(error);
        stream.cancel();
      }
    });
    stream.on('error', fail);
    stream.on('end', () => {
      if (!settled) {
        settled = true;
        resolve(messages);
      }
    });
  });
}

const TERMINAL_TURN_STATUSES = new Set([
  'TURN_STATUS_COMPLETED',
  'TURN_STATUS_ABORTED',
  'TURN_STATUS_FAILED',
]);

/**
 * Start a turn (or attach to it again: a retry with the same turnId and text joins the same
 * turn) and read its events until it ends. Resolves with {turnId, events, status, lastSeq,
 * text}; rejects with the call's error, or when the stream ends without a terminal
 * turn_state.
 *
 * The stream has no deadline unless `deadlineMs` (or `defaults.streamMs`) sets one for the
 * whole turn. `idleTimeoutMs` (off by default) fails the stream when no event arrives for that
 * long: the error has `idle: true` and code DEADLINE_EXCEEDED. Either way the call is
 * cancelled, and the kernel stops a turn whose stream went away (`stream_abandoned`).
 */
export async function streamTurn(
  kernel,
  request,
  { deadlineMs = defaults.streamMs, idleTimeoutMs = null, onEvent } = {},
) {
  const options = deadlineMs == null ? {} : { deadline: Date.now() + deadlineMs };
  const call = kernel.startTurn(request, options);
  let idleTimer;
  let idleError = null;
  const arm = () => {
    if (idleTimeoutMs == null) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleError = Object.assign(new Error(`no turn event within ${idleTimeoutMs} ms`), {
        code: grpc.status.DEADLINE_EXCEEDED,
        idle: true,
      });
      call.cancel();
    }, idleTimeoutMs);
  };
  let replies;
  try {
    arm();
    replies = await collect(call, (reply) => {
      arm();
      onEvent?.(reply.event);
    });
  } catch (error) {
    throw idleError ?? error;
  } finally {
    clearTimeout(idleTimer);
  }
  const events = replies.map((reply) => reply.event);
  const states = events.filter((event) => event.turnState);
  const turnStatus = states.at(-1)?.turnState.status ?? 'TURN_STATUS_UNSPECIFIED';
  const result = {
    turnId: request.turnId || events[0]?.turnId || '',
    events,
    status: turnStatus,
    lastSeq: events.at(-1)?.seq ?? '0',
    text: events.map((event) => event.textDelta?.text ?? '').join(''),
  };
  if (!TERMINAL_TURN_STATUSES.has(turnStatus)) {
    throw Object.assign(new Error(`turn stream ended before the turn did (${turnStatus})`), {
      result,
    });
  }
  return result;
}

/**
 * Open a client connection on the resource service. Controller leases acquired with its id
 * are released by the service when the connection closes (close(), or the process exiting).
 * Resolves with {id, close()} once the server has answered.
 */
export function openConnection(resource, clientName, deadlineMs = defaults.unaryMs) {
  return new Promise((resolve, reject) => {
    const stream = resource.openConnection({ clientName });
    const timer = setTimeout(() => {
      stream.cancel();
      reject(new Error(`OpenConnection: no answer within ${deadlineMs} ms`));
    }, deadlineMs);
    let opened = false;
    stream.on('data', (reply) => {
      if (opened) return;
      opened = true;
      clearTimeout(timer);
      resolve({ id: reply.connectionId, close: () => stream.cancel() });
    });
    stream.on('error', (error) => {
      clearTimeout(timer);
      if (!opened) reject(error);
    });
  });
}

/**
 * A controller lease on a PTY run with the sequence bookkeeping of its controls: control()
 * sends the next sequence and advances only once the service applied it. A control whose
 * outcome is unknown (deadline, transport failure) stays pending, and control() refuses to
 * send another until retry() has resent it: the service accepts only exactly the next
 * sequence and answers an exact retry with the original result.
 */
export class Controller {
  constructor(resource, { sessionId, ref, controllerId, connectionId = '' }, nextSequence) {
    this.resource = resource;
    this.sessionId = sessionId;
    this.ref = ref;
    this.controllerId = controllerId;
    this.connectionId = connectionId;
    this.next = BigInt(nextSequence);
    this.last = null;
    this.pending = false;
  }

  /** The sequence the next control carries (as a string, like every 64-bit field). */
  get nextSequence() {
    return String(this.next);
  }

  /** Type input (e.g. "ls\r") under the lease. */
  send(input, deadlineMs) {
    return this.control({ input }, deadlineMs);
  }

  /** Resize the terminal under the lease. */
  resize(cols, rows, deadlineMs) {
    return this.control({ resize: { cols, rows } }, deadlineMs);
  }

  /** Send input and/or a resize with the next sequence. */
  async control({ input = '', resize = null }, deadlineMs = defaults.unaryMs) {
    if (this.pending) {
      throw new Error("an earlier control's outcome is unknown; call retry() first");
    }
    return this.#send(
      {
        sessionId: this.sessionId,
        ref: this.ref,
        controllerId: this.controllerId,
        connectionId: this.connectionId,
        sequence: String(this.next),
        input,
        resize,
      },
      deadlineMs,
    );
  }

  /** Resend the last control exactly (same sequence and payload). */
  async retry(deadlineMs = defaults.unaryMs) {
    if (!this.last) throw new Error('no control to retry');
    return this.#send(this.last, deadlineMs);
  }

  /** Give the lease up; resolves false when it had already ended. */
  async release(deadlineMs = defaults.unaryMs) {
    const reply = await call(
      this.resource,
      'releaseController',
      {
        sessionId: this.sessionId,
        ref: this.ref,
        controllerId: this.controllerId,
        connectionId: this.connectionId,
      },
      deadlineMs,
    );
    return reply.released;
  }

  async #send(request, deadlineMs) {
    try {
      const reply = await call(this.resource, 'controlController', request, deadlineMs);
      this.last = request;
      this.pending = false;
      if (BigInt(request.sequence) === this.next) this.next += 1n;
      return reply;
    } catch (error) {
      if (OUTCOME_UNKNOWN.has(error.code)) {
        this.last = request;
        this.pending = true;
      } else {
        this.pending = false; // refused: the sequence was not used
      }
      throw error;
    }
  }
}

const OUTCOME_UNKNOWN = new Set([
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED,
  grpc.status.UNAVAILABLE,
  grpc.status.UNKNOWN,
  grpc.status.INTERNAL,
]);

/**
 * Take the controller lease on an active PTY run. Omit connectionId for a detached lease.
 * Resolves with {controller, acquired} (acquired: the AcquireController answer, with the
 * screen and output sequence now). A lease held by someone else rejects with ABORTED and
 * ErrorInfo reason OPERATION_CONFLICT.
 */
export async function acquireController(resource, lease, deadlineMs = defaults.unaryMs) {
  const acquired = await call(
    resource,
    'acquireController',
    {
      sessionId: lease.sessionId,
      ref: lease.ref,
      controllerId: lease.controllerId,
      connectionId: lease.connectionId ?? '',
    },
    deadlineMs,
  );
  const controller = new Controller(
    resource,
    { ...lease, controllerId: acquired.controllerId },
    acquired.nextSequence,
  );
  return { controller, acquired };
}

/** A screen's scrollback and visible rows as one text, oldest row first. */
export function screenText(screen) {
  return [...(screen?.scrollback ?? []), ...(screen?.lines ?? [])].join('\n');
}

/**
 * Follow a PTY run with Attach (output after afterSequence) and resolve with its screen as
 * soon as match(screen) is true: the screen at attach time first, then after each output
 * chunk (the service renders output into the screen before sending the chunk). Rejects when
 * the run ends first (error.screen holds the final screen) or at the deadline.
 */
export function waitForScreen(
  resource,
  { sessionId, ref, afterSequence = '0' },
  match,
  deadlineMs = 10_000,
) {
  return new Promise((resolve, reject) => {
    const stream = resource.attach({ deadline: Date.now() + deadlineMs });
    let settled = false;
    let checking = Promise.resolve();
    const settle = (error, screen) => {
      if (settled) return;
      settled = true;
      stream.cancel();
      if (error) reject(error);
      else resolve(screen);
    };
    const check = (screen) => {
      if (screen && match(screen)) settle(null, screen);
    };
    // Every event is handled in arrival order, after the checks of the chunks before it.
    const then = (step) => {
      checking = checking.then(step).catch((error) => settle(error));
    };
    stream.on('data', (reply) => {
      if (reply.event === 'attached') {
        then(() => check(reply.attached.screen));
      } else if (reply.event === 'output') {
        then(async () => {
          if (settled) return;
          const { run } = await call(resource, 'getRun', { sessionId, ref }, deadlineMs);
          check(run.screen);
        });
      } else if (reply.event === 'ended') {
        then(() => {
          check(reply.ended.screen);
          settle(
            Object.assign(new Error('run ended before the screen matched'), {
              screen: reply.ended.screen,
            }),
          );
        });
      }
    });
    stream.on('error', (error) => settle(error));
    stream.on('end', () =>
      then(() => settle(new Error('attach stream ended before the screen matched'))),
    );
    stream.write({ start: { sessionId, ref, afterSequence: String(afterSequence) } });
    stream.end(); // no controls follow; output keeps coming until the run ends
  });
}
