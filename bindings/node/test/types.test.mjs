// index.d.ts: a TypeScript program that uses the package (test/types/
// consumer.ts) passes tsc --strict, the pinned typescript of
// devDependencies (skipped when it is not installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const project = fileURLToPath(new URL('./types/tsconfig.json', import.meta.url));

test('the declarations type-check a program that uses them', { skip: !existsSync(tsc) && 'typescript is not installed (npm ci in bindings/node)' }, () => {
  const r = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
