// A small TypeScript consumer of the installed package, type-checked (tsc --noEmit) by
// tests/clients/test_packages.py against the package's own declarations. Each @ts-expect-error
// line is a misuse the types must refuse: tsc fails when one of them type-checks.
import {
  acquireController,
  call,
  connect,
  errorInfo,
  Reason,
  screenText,
  streamTurn,
  type ReasonName,
  type SessionEvent__Output,
  type TurnResult,
  type TurnStatus__Output,
} from '@maka/runtime-client';
import type { Session__Output } from '@maka/runtime-client/types/maka/kernel/v1/Session';

export async function firstTurn(kernel: string, resource: string, workspace: string): Promise<string> {
  const client = connect(kernel, resource, { dataDir: '/tmp/maka' });
  try {
    const created = await call(client.kernel, 'createSession', { workspaceRoot: workspace });
    const session: Session__Output | null = created.session;
    const turn: TurnResult = await streamTurn(
      client.kernel,
      { sessionId: session?.id ?? '', text: '/script say hello' },
      { idleTimeoutMs: 5_000, onEvent: (event: SessionEvent__Output) => event.textDelta?.text },
    );
    const status: TurnStatus__Output = turn.status;
    const seq: string = turn.lastSeq;
    const first: SessionEvent__Output | undefined = turn.events[0];
    const { run } = await call(client.resource, 'startBackground', {
      sessionId: 'demo',
      command: 'bash',
      pty: true,
    });
    const { controller, acquired } = await acquireController(client.resource, {
      sessionId: 'demo',
      ref: run?.ref ?? '',
      controllerId: 'me',
    });
    const answer = await controller.send('ls\r');
    const reason: ReasonName | undefined = errorInfo(new Error('x'))?.reason as ReasonName;
    const conflict: 'OPERATION_CONFLICT' = Reason.OPERATION_CONFLICT;

    // @ts-expect-error: the kernel has no such method
    await call(client.kernel, 'noSuchMethod', {});
    // @ts-expect-error: workspaceRoot is a string
    await call(client.kernel, 'createSession', { workspaceRoot: 42 });
    // @ts-expect-error: StartTurn streams; it is not a unary call
    await call(client.kernel, 'startTurn', { sessionId: '' });
    // @ts-expect-error: a status is one of the TurnStatus names
    const wrong: TurnStatus__Output = 'TURN_STATUS_DONE';
    // @ts-expect-error: not a registered reason
    void Reason.NO_SUCH_REASON;
    // @ts-expect-error: 64-bit fields are strings
    const seqNumber: number = turn.lastSeq;

    return [status, seq, first?.event, answer.sequence, acquired.nextSequence, reason, conflict,
      screenText(acquired.screen), wrong, seqNumber].join(' ');
  } finally {
    client.close();
  }
}
