// Node.js client for Maka Runtime: loads the contract from protos/ at run time (no generated
// code) and exposes typed-by-convention stubs plus the google.rpc.ErrorInfo of failed calls.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';

const here = dirname(fileURLToPath(import.meta.url));
export const PROTO_ROOT = process.env.MAKA_PROTO_ROOT ?? join(here, '..', '..', 'protos');

const definition = protoLoader.loadSync(
  ['maka/kernel/v1/kernel.proto', 'maka/resource/v1/resource.proto'],
  { includeDirs: [PROTO_ROOT], keepCase: false, longs: String, enums: String, defaults: true },
);
const loaded = grpc.loadPackageDefinition(definition);

/** The kernel service stub constructor (maka.kernel.v1.KernelService). */
export const KernelService = loaded.maka.kernel.v1.KernelService;
/** The resource service stub constructor (maka.resource.v1.ResourceService). */
export const ResourceService = loaded.maka.resource.v1.ResourceService;

/** Connect to both services over plaintext (loopback deployments). */
export function connect(kernelAddress, resourceAddress) {
  const credentials = grpc.credentials.createInsecure();
  return {
    kernel: new KernelService(kernelAddress, credentials),
    resource: new ResourceService(resourceAddress, credentials),
    close() {
      this.kernel.close();
      this.resource.close();
    },
  };
}

/** Call a unary method and get a promise. */
export function call(client, method, request, deadlineMs = 10_000) {
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
