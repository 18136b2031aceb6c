// Runs the real Python services and calls them from Node.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { call, connect } from '../index.js';

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

before(async () => {
  assert.ok(existsSync(python), `no Python environment at ${python}; set MAKA_PYTHON`);
  dataDir = mkdtempSync(join(tmpdir(), 'maka-node-'));
  services.resource = startService('resource_service.server', dataDir);
  const resourceAddress = await services.resource.address;
  services.kernel = startService(
    'kernel_service.server',
    dataDir,
    '--resource-address',
    resourceAddress,
  );
  await services.kernel.address;
});

after(async () => {
  await Promise.all(Object.values(services).map((service) => service.stop()));
  rmSync(dataDir, { recursive: true, force: true });
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
