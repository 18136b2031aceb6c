// Types of this package's own API (index.js). The message and service types under types/ are
// generated from the protos by scripts/gen_protos.py (proto-loader-gen-types, with the options
// index.js loads the protos with: 64-bit fields and enums as strings, defaults, virtual oneofs).
// A message type `Foo` is what a call accepts; `Foo__Output` is what it returns.
import type * as grpc from '@grpc/grpc-js';

import type { ErrorReason__Output } from './types/maka/common/v1/ErrorReason.js';
import type { ProtoGrpcType as KernelProto } from './types/kernel.js';
import type { ProtoGrpcType as ResourceProto } from './types/resource.js';
import type { KernelServiceClient } from './types/maka/kernel/v1/KernelService.js';
import type { SessionEvent, SessionEvent__Output } from './types/maka/kernel/v1/SessionEvent.js';
import type { StartTurnRequest } from './types/maka/kernel/v1/StartTurnRequest.js';
import type { TurnStatus, TurnStatus__Output } from './types/maka/kernel/v1/TurnStatus.js';
import type { AcquireControllerResponse__Output } from './types/maka/resource/v1/AcquireControllerResponse.js';
import type { ControlControllerRequest } from './types/maka/resource/v1/ControlControllerRequest.js';
import type { ControlControllerResponse__Output } from './types/maka/resource/v1/ControlControllerResponse.js';
import type { ResourceServiceClient } from './types/maka/resource/v1/ResourceService.js';
import type { Screen__Output } from './types/maka/resource/v1/Screen.js';
import type { TerminalSize } from './types/maka/resource/v1/TerminalSize.js';

export type {
  ErrorReason__Output,
  KernelServiceClient,
  ResourceServiceClient,
  SessionEvent,
  SessionEvent__Output,
  StartTurnRequest,
  TurnStatus,
  TurnStatus__Output,
  Screen__Output,
};

/** Where the package's copy of the protos lives ($MAKA_PROTO_ROOT overrides it). */
export const PROTO_ROOT: string;

/** gRPC status codes (grpc.status), e.g. `status.ABORTED`. */
export const status: typeof grpc.status;

/** The kernel service stub constructor (maka.kernel.v1.KernelService). */
export const KernelService: KernelProto['maka']['kernel']['v1']['KernelService'];
/** The resource service stub constructor (maka.resource.v1.ResourceService). */
export const ResourceService: ResourceProto['maka']['resource']['v1']['ResourceService'];

/** The client side of the keepalive policy (README section "Keepalive"). */
export const KEEPALIVE_OPTIONS: Readonly<{
  'grpc.keepalive_time_ms': number;
  'grpc.keepalive_timeout_ms': number;
  'grpc.keepalive_permit_without_calls': number;
}>;

/** Where a client finds its credential and how it connects (each falls back to $MAKA_…). */
export interface ConnectOptions {
  /** The bearer token ($MAKA_TOKEN). */
  token?: string;
  /** The services' data directory, for the local credential ($MAKA_DATA_DIR). */
  dataDir?: string;
  /** The CA certificate file: TLS when set ($MAKA_TLS_CA). */
  tlsCa?: string;
  /** A client certificate file for mutual TLS ($MAKA_TLS_CERT). */
  tlsCert?: string;
  /** Its private key file ($MAKA_TLS_KEY). */
  tlsKey?: string;
}

/** The services' default data directory ($XDG_DATA_HOME or ~/.local/share, /maka-runtime). */
export function defaultDataDir(): string;

/** The token a client sends (see index.js), or null when there is none. */
export function findToken(options?: ConnectOptions): string | null;

/** Both stubs, connected by connect(). */
export interface Clients {
  kernel: KernelServiceClient;
  resource: ResourceServiceClient;
  close(): void;
}

/** Connect to both services with KEEPALIVE_OPTIONS and the credential findToken() finds. */
export function connect(
  kernelAddress: string,
  resourceAddress: string,
  options?: ConnectOptions,
): Clients;

/** The deadlines of calls that do not give their own, in milliseconds (null: none). */
export const defaults: { unaryMs: number; streamMs: number | null };

// `any` here only matches signatures: what a method takes and gives comes from RequestOf/ResponseOf.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type UnarySignature = (argument: any, callback: grpc.requestCallback<any>) => grpc.ClientUnaryCall;

/** The names of a stub's unary methods (both spellings: `createSession`, `CreateSession`). */
export type UnaryMethod<Client> = {
  [Name in keyof Client & string]: Client[Name] extends UnarySignature ? Name : never;
}[keyof Client & string];

/** The request type of a unary stub method. */
export type RequestOf<Method> = Method extends (
  argument: infer Request,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  callback: grpc.requestCallback<any>,
) => grpc.ClientUnaryCall
  ? Request
  : never;

/** The response type of a unary stub method. */
export type ResponseOf<Method> = Method extends (
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  argument: any,
  callback: grpc.requestCallback<infer Response>,
) => grpc.ClientUnaryCall
  ? Response
  : never;

/** Call a unary method and get a promise: `call(client.kernel, 'createSession', {…})`. */
export function call<Client, Name extends UnaryMethod<Client>>(
  client: Client,
  method: Name,
  request: RequestOf<Client[Name]>,
  deadlineMs?: number,
): Promise<ResponseOf<Client[Name]>>;

/** The prefix of every registry value name; the reason string a service sends has none. */
export const REASON_PREFIX: 'ERROR_REASON_';

type WithoutPrefix<Name> = Name extends `ERROR_REASON_${infer Reason}` ? Reason : never;

/** Every ErrorInfo reason a Maka Runtime service may send, e.g. `'OPERATION_CONFLICT'`. */
export type ReasonName = WithoutPrefix<Exclude<ErrorReason__Output, 'ERROR_REASON_UNSPECIFIED'>>;

/** Every reason by name: `Reason.OPERATION_CONFLICT` is `'OPERATION_CONFLICT'`. */
export const Reason: { readonly [Name in ReasonName]: Name };

/** The reason string of a registry value, by number or enum name; RangeError otherwise. */
export function reasonName(value: number | ErrorReason__Output): ReasonName;

/** A refusal for the credential as an Error that says how to fix it; null for anything else. */
export function authError(error: unknown): Error | null;

/** The google.rpc.ErrorInfo of a failed call, or null. */
export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}
export function errorInfo(error: unknown): ErrorInfo | null;

/** Read a server stream to its end; `onMessage` sees each message (throwing cancels it). */
export function collect<Message>(
  stream: grpc.ClientReadableStream<Message>,
  onMessage?: (message: Message) => void,
): Promise<Message[]>;

/** A finished turn, as streamTurn() resolves it. */
export interface TurnResult {
  turnId: string;
  events: SessionEvent__Output[];
  status: TurnStatus__Output;
  /** The seq of the last event (a string, like every 64-bit field). */
  lastSeq: string;
  /** Every text_delta of the turn, joined. */
  text: string;
}

export interface StreamTurnOptions {
  /** A deadline for the whole turn (default defaults.streamMs: none). */
  deadlineMs?: number | null;
  /** Fail (code DEADLINE_EXCEEDED, `idle: true`) when no event comes for this long. */
  idleTimeoutMs?: number | null;
  /** Sees each event as it arrives. */
  onEvent?: (event: SessionEvent__Output) => void;
}

/** Start (or rejoin) a turn and read its events until it ends. */
export function streamTurn(
  kernel: Pick<KernelServiceClient, 'startTurn'>,
  request: StartTurnRequest,
  options?: StreamTurnOptions,
): Promise<TurnResult>;

/** A client connection on the resource service; leases taken with its id end with it. */
export interface Connection {
  id: string;
  close(): void;
}
export function openConnection(
  resource: ResourceServiceClient,
  clientName: string,
  deadlineMs?: number,
): Promise<Connection>;

/** What names a controller lease. */
export interface Lease {
  sessionId: string;
  ref: string;
  controllerId: string;
  /** Omit for a detached lease. */
  connectionId?: string;
}

/** A controller lease on a PTY run, with the sequence bookkeeping of its controls. */
export class Controller {
  #private;
  constructor(resource: ResourceServiceClient, lease: Lease, nextSequence: string | number | bigint);
  readonly resource: ResourceServiceClient;
  readonly sessionId: string;
  readonly ref: string;
  readonly controllerId: string;
  readonly connectionId: string;
  /** The sequence the next control carries. */
  next: bigint;
  /** The last control sent (what retry() resends). */
  last: ControlControllerRequest | null;
  /** True while the outcome of the last control is unknown. */
  pending: boolean;
  /** The sequence the next control carries, as a string. */
  get nextSequence(): string;
  send(input: string, deadlineMs?: number): Promise<ControlControllerResponse__Output>;
  resize(cols: number, rows: number, deadlineMs?: number): Promise<ControlControllerResponse__Output>;
  control(
    control: { input?: string; resize?: TerminalSize | null },
    deadlineMs?: number,
  ): Promise<ControlControllerResponse__Output>;
  retry(deadlineMs?: number): Promise<ControlControllerResponse__Output>;
  /** Give the lease up; resolves false when it had already ended. */
  release(deadlineMs?: number): Promise<boolean>;
}

/** Take the controller lease on an active PTY run. */
export function acquireController(
  resource: ResourceServiceClient,
  lease: Lease,
  deadlineMs?: number,
): Promise<{ controller: Controller; acquired: AcquireControllerResponse__Output }>;

/** A screen's scrollback and visible rows as one text, oldest row first. */
export function screenText(screen: Screen__Output | null | undefined): string;

/** Follow a PTY run with Attach until match(screen) is true. */
export function waitForScreen(
  resource: ResourceServiceClient,
  run: { sessionId: string; ref: string; afterSequence?: string | number },
  match: (screen: Screen__Output) => boolean,
  deadlineMs?: number,
): Promise<Screen__Output>;
