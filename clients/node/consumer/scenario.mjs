// The client scenario run from an installed copy of the package (tests/clients/test_packages.py
// installs the packed tarball into an empty directory outside the repository and runs this
// there): a session, a turn and its events, and a refused call with its ErrorInfo reason.
// Addresses and the workspace come from MAKA_KERNEL_ADDRESS, MAKA_RESOURCE_ADDRESS and
// MAKA_WORKSPACE; the credential is found as usual (MAKA_DATA_DIR). Prints one JSON summary.
import assert from 'node:assert/strict';

import { call, connect, errorInfo, PROTO_ROOT, Reason, status, streamTurn } from '@maka/runtime-client';

const env = (name) => process.env[name] ?? assert.fail(`${name} is not set`);
const client = connect(env('MAKA_KERNEL_ADDRESS'), env('MAKA_RESOURCE_ADDRESS'));
try {
  const { session } = await call(client.kernel, 'createSession', {
    workspaceRoot: env('MAKA_WORKSPACE'),
    name: 'installed-package',
  });
  const turn = await streamTurn(
    client.kernel,
    { sessionId: session.id, turnId: 'turn-1', text: '/script say hello; tool bash ls; say done' },
    { deadlineMs: 30_000 },
  );
  const seqs = turn.events.map((event) => BigInt(event.seq));
  seqs.slice(1).forEach((seq, i) => assert.ok(seq > seqs[i], `seq ${seq} after ${seqs[i]}`));
  const refused = await call(client.kernel, 'getSession', { sessionId: 'no-such-session' }).then(
    () => assert.fail('an unknown session was found'),
    (error) => error,
  );
  const info = errorInfo(refused);
  console.log(
    JSON.stringify({
      protoRoot: PROTO_ROOT,
      sessionId: session.id,
      status: turn.status,
      text: turn.text,
      lastSeq: turn.lastSeq,
      events: turn.events.map((event) => event.event),
      tool: turn.events.find((event) => event.toolCall)?.toolCall.name ?? null,
      error: {
        notFound: refused.code === status.NOT_FOUND,
        reason: info?.reason ?? null,
        registered: info?.reason === Reason.NOT_FOUND,
        domain: info?.domain ?? null,
      },
    }),
  );
} finally {
  client.close();
}
