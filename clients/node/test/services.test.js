// Runs the real Python services and calls them from Node.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  acquireController,
  authError,
  call,
  connect,
  defaults,
  errorInfo,
  findToken,
  openConnection,
  Reason,
  screenText,
  status,
  streamTurn,
  waitForScreen,
} from '../index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const python = process.env.MAKA_PYTHON ?? join(repo, '.venv', 'bin', 'python');

function startService(module, dataDir, ...args) {
  const child = spawn(
    python,
    ['-m', module, '--listen', '127.0.0.1:0', '--data-dir', dataDir, ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const address = new Promise((resolve, reject) => {
    let buffered = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      buffered += chunk;
      const match = /maka-\w+ listening on (\S+:\d+)/.exec(buffered);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`${module} exited with ${code}: ${buffered}`)));
  });
  const stopped = new Promise((resolve) => child.on('exit', resolve));
  return { child, address, stop: () => (child.kill('SIGTERM'), stopped) };
}

const services = {};
let dataDir;
// A workspace clear of the kernel's data directory (the kernel refuses one that contains it).
let workspace;

before(async () => {
  assert.ok(existsSync(python), `no Python environment at ${python}; set MAKA_PYTHON`);
  dataDir = mkdtempSync(join(tmpdir(), 'maka-node-'));
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'maka-node-workspace-')));
  // A client connected without a token finds the local credential the services create here.
  process.env.MAKA_DATA_DIR = dataDir;
  services.resource = startService('maka_runtime.resource.server', dataDir, '--standalone');
  const resourceAddress = await services.resource.address;
  services.kernel = startService(
    'maka_runtime.kernel.server',
    dataDir,
    '--resource-address',
    resourceAddress,
    '--default-backend',
    'scripted',
  );
  await services.kernel.address;
});

after(async () => {
  await Promise.all(Object.values(services).map((service) => service.stop()));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

test('both services describe themselves to a Node client', async () => {
  const [kernelAddress, resourceAddress] = await Promise.all([
    services.kernel.address,
    services.resource.address,
  ]);
  const client = connect(kernelAddress, resourceAddress);
  try {
    const kernel = await call(client.kernel, 'getServerInfo', {});
    assert.equal(kernel.service, 'maka-kernel');
    assert.equal(kernel.listenAddress, kernelAddress);
    const resource = await call(client.resource, 'getServerInfo', {});
    assert.equal(resource.service, 'maka-resource');
    assert.equal(resource.listenAddress, resourceAddress);
    assert.equal(resource.pid, String(services.resource.child.pid));
  } finally {
    client.close();
  }
});

async function connected() {
  const [kernelAddress, resourceAddress] = await Promise.all([
    services.kernel.address,
    services.resource.address,
  ]);
  return connect(kernelAddress, resourceAddress);
}

test('a scripted turn streams in seq order to turn_state completed', async () => {
  const client = await connected();
  try {
    const { session } = await call(client.kernel, 'createSession', {
      workspaceRoot: workspace,
      name: 'node-turn',
    });
    const seen = [];
    const turn = await streamTurn(
      client.kernel,
      { sessionId: session.id, turnId: 'turn-1', text: '/script say hello; tool bash ls; say done' },
      { deadlineMs: 20_000, onEvent: (event) => seen.push(event.seq) },
    );
    assert.ok(turn.events.length > 0);
    assert.deepEqual(seen, turn.events.map((event) => event.seq));
    const seqs = turn.events.map((event) => BigInt(event.seq));
    for (let i = 1; i < seqs.length; i += 1) {
      assert.ok(seqs[i] > seqs[i - 1], `seq ${seqs[i]} after ${seqs[i - 1]}`);
    }
    for (const event of turn.events) assert.equal(event.turnId, 'turn-1');
    const last = turn.events.at(-1);
    assert.equal(last.event, 'turnState');
    assert.equal(last.turnState.status, 'TURN_STATUS_COMPLETED');
    assert.equal(turn.status, 'TURN_STATUS_COMPLETED');
    assert.equal(turn.lastSeq, last.seq);
    assert.equal(turn.text, 'hellodone');
    const toolCall = turn.events.find((event) => event.toolCall)?.toolCall;
    const toolResult = turn.events.find((event) => event.toolResult)?.toolResult;
    assert.equal(toolCall?.name, 'bash');
    assert.equal(toolCall?.input, 'ls');
    assert.equal(toolResult?.toolCallId, toolCall.toolCallId);

    // What was streamed is what the log holds under the same seqs.
    const { events: stored } = await call(client.kernel, 'readMessages', { sessionId: session.id });
    const bySeq = new Map(stored.map((event) => [event.seq, event]));
    for (const event of turn.events) assert.deepEqual(bySeq.get(event.seq), event);
  } finally {
    client.close();
  }
});

test('a PTY run typed into under a controller lease from Node', async () => {
  const client = await connected();
  const sessionId = 'node-pty';
  let ref;
  let connection;
  try {
    const { run } = await call(client.resource, 'startBackground', {
      sessionId,
      command: 'while IFS= read -r line; do echo "got:$line"; done',
      pty: true,
      size: { cols: 80, rows: 24 },
    });
    ref = run.ref;
    assert.equal(run.status, 'RUN_STATUS_RUNNING');
    connection = await openConnection(client.resource, 'node-test');
    const { controller, acquired } = await acquireController(client.resource, {
      sessionId,
      ref,
      controllerId: 'node-controller',
      connectionId: connection.id,
    });
    assert.equal(controller.nextSequence, '1');

    const first = await controller.send('hello\r');
    assert.equal(first.sequence, '1');
    assert.equal(first.inputBytes, String('hello\r'.length));
    assert.equal(controller.nextSequence, '2');
    await waitForScreen(
      client.resource,
      { sessionId, ref, afterSequence: acquired.outputSequence },
      (screen) => screenText(screen).includes('got:hello'),
    );

    // An exact retry of sequence 1 answers identically and types nothing again.
    assert.deepEqual(await controller.retry(), first);
    assert.equal(controller.nextSequence, '2');

    // A second controller is refused while the lease is held.
    await assert.rejects(
      call(client.resource, 'acquireController', { sessionId, ref, controllerId: 'intruder' }),
      (error) => {
        assert.equal(error.code, status.ABORTED);
        assert.equal(errorInfo(error)?.reason, Reason.OPERATION_CONFLICT);
        assert.equal(errorInfo(error)?.domain, 'resource.maka');
        return true;
      },
    );

    const second = await controller.send('again\r');
    assert.equal(second.sequence, '2');
    const screen = await waitForScreen(client.resource, { sessionId, ref }, (s) =>
      screenText(s).includes('got:again'),
    );
    assert.equal(screenText(screen).split('got:hello').length - 1, 1, screenText(screen));

    const stopped = await call(client.resource, 'stopRun', { sessionId, ref });
    ref = undefined;
    assert.equal(stopped.run.status, 'RUN_STATUS_CANCELLED');
    assert.equal(await controller.release(), false);
  } finally {
    connection?.close();
    if (ref) await call(client.resource, 'stopRun', { sessionId, ref }).catch(() => {});
    client.close();
  }
});

async function scriptedSession(client, name) {
  const { session } = await call(client.kernel, 'createSession', {
    workspaceRoot: workspace,
    name,
  });
  return session.id;
}

/** The kernel stub, recording the call options of every startTurn. */
function recordingStartTurn(kernel, seen) {
  return {
    startTurn: (request, options) => {
      seen.push(options);
      return kernel.startTurn(request, options);
    },
  };
}

test('a turn longer than the unary deadline completes: streams get no deadline by default', async () => {
  const client = await connected();
  const unaryMs = defaults.unaryMs;
  defaults.unaryMs = 300; // every unary call; the turn below takes four times as long
  try {
    const sessionId = await scriptedSession(client, 'node-long-turn');
    const seen = [];
    const started = Date.now();
    const turn = await streamTurn(recordingStartTurn(client.kernel, seen), {
      sessionId,
      text: '/script say start; sleep 1200; say done',
    });
    assert.ok(Date.now() - started >= 1200);
    assert.equal(turn.status, 'TURN_STATUS_COMPLETED');
    assert.equal(turn.text, 'startdone');
    assert.equal(seen.length, 1);
    assert.equal(seen[0].deadline, undefined, 'the stream must not carry a deadline');
    // Unary calls still have theirs.
    await assert.rejects(
      new Promise((resolve, reject) =>
        client.kernel.getSession({ sessionId }, { deadline: Date.now() - 1 }, (error) =>
          error ? reject(error) : resolve(),
        ),
      ),
      (error) => error.code === status.DEADLINE_EXCEEDED,
    );
  } finally {
    defaults.unaryMs = unaryMs;
    client.close();
  }
});

test('a whole-turn deadline is there when asked for, and ends the turn', async () => {
  const client = await connected();
  try {
    const sessionId = await scriptedSession(client, 'node-deadline');
    const seen = [];
    const request = { sessionId, turnId: 'cut-short', text: '/script say start; sleep 5000' };
    await assert.rejects(
      streamTurn(recordingStartTurn(client.kernel, seen), request, { deadlineMs: 300 }),
      (error) => error.code === status.DEADLINE_EXCEEDED,
    );
    assert.equal(typeof seen[0].deadline, 'number');
    // The kernel stops a turn whose stream went away.
    for (let attempt = 0; ; attempt += 1) {
      const { turns } = await call(client.kernel, 'listTurns', { sessionId });
      const cut = turns.find((turn) => turn.turnId === 'cut-short');
      if (cut?.status === 'TURN_STATUS_ABORTED') break;
      assert.ok(attempt < 200, 'the turn was never aborted');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    client.close();
  }
});

test('the idle timeout fails a turn that goes quiet and spares one that keeps talking', async () => {
  const client = await connected();
  try {
    const sessionId = await scriptedSession(client, 'node-idle');
    // Four pauses of 400 ms: 1.6 s in all, never 1 s without an event.
    const text = `/script say a; ${['b', 'c', 'd', 'e'].map((w) => `sleep 400; say ${w}`).join('; ')}`;
    const talking = await streamTurn(client.kernel, { sessionId, text }, { idleTimeoutMs: 1000 });
    assert.equal(talking.status, 'TURN_STATUS_COMPLETED');
    assert.equal(talking.text, 'abcde');

    const seen = [];
    const started = Date.now();
    await assert.rejects(
      streamTurn(
        client.kernel,
        { sessionId, text: '/script say a; sleep 5000; say b' },
        { idleTimeoutMs: 300, onEvent: (event) => seen.push(event) },
      ),
      (error) => {
        assert.equal(error.idle, true);
        assert.equal(error.code, status.DEADLINE_EXCEEDED);
        assert.match(error.message, /no turn event within 300 ms/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 5000);
    assert.ok(seen.some((event) => event.textDelta?.text === 'a'));
  } finally {
    client.close();
  }
});

test('the local credential is found by itself; a wrong token is UNAUTHENTICATED', async () => {
  const [kernelAddress, resourceAddress] = await Promise.all([
    services.kernel.address,
    services.resource.address,
  ]);
  const saved = process.env.MAKA_TOKEN;
  delete process.env.MAKA_TOKEN;
  try {
    const local = readFileSync(join(dataDir, 'credentials', 'local.token'), 'utf8').trim();
    assert.equal(findToken(), local);
    const client = connect(kernelAddress, resourceAddress);
    try {
      const info = await call(client.kernel, 'getServerInfo', {});
      assert.equal(info.authMode, 'token');
    } finally {
      client.close();
    }
    const wrong = connect(kernelAddress, resourceAddress, { token: 'not-a-token' });
    try {
      const refused = await call(wrong.resource, 'getServerInfo', {}).then(
        () => assert.fail('a wrong token was accepted'),
        (error) => error,
      );
      assert.equal(refused.code, status.UNAUTHENTICATED);
      assert.equal(errorInfo(refused).reason, 'UNAUTHENTICATED');
      assert.match(authError(refused).message, /MAKA_TOKEN/);
    } finally {
      wrong.close();
    }
  } finally {
    if (saved !== undefined) process.env.MAKA_TOKEN = saved;
  }
});
