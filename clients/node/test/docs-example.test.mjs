// docs/client/node.md's first ```js block, run word for word against the test Redis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { PACKAGE_DIR, redisUrl } from './support/env.mjs';
import { connect } from './support/redis.mjs';
import { metaKey } from '../src/protocol/cacheKeys.js';

const DOC = path.resolve(PACKAGE_DIR, '..', '..', 'docs', 'client', 'node.md');

function firstJsBlock(markdown) {
  const match = /^```js\n([\s\S]*?)^```$/m.exec(markdown);
  assert.ok(match, `${DOC} has a \`\`\`js block`);
  return match[1];
}

test("the doc's example runs as shown and prints what the doc says", async () => {
  const admin = await connect();
  const code = firstJsBlock(readFileSync(DOC, 'utf8'));
  assert.match(code, /process\.env\.REDIS_URL \?\? 'redis:\/\/localhost:6379'/);
  // Inside the package, so that `import 'refresher-client'` resolves to it (a package's self-reference).
  const file = path.join(PACKAGE_DIR, `.docs-example-${process.pid}.mjs`);
  writeFileSync(file, code);
  await admin.del(['banner:home', 'product:42', metaKey('product:42')]);
  try {
    const run = () =>
      promisify(execFile)(process.execPath, [file], { cwd: PACKAGE_DIR, env: { ...process.env, REDIS_URL: redisUrl() }, timeout: 30_000 });
    const expected = 'banner: null, product: {"id":42,"name":"Phone Pro"}\n';
    assert.equal((await run()).stdout, expected, 'first run: loaded');
    assert.equal(await admin.get('product:42'), '{"id":42,"name":"Phone Pro"}');
    assert.equal(await admin.hGet(metaKey('product:42'), 'epoch'), '0');
    assert.equal((await run()).stdout, expected, 'second run: from Redis');
  } finally {
    rmSync(file, { force: true });
    await admin.del(['banner:home', 'product:42', metaKey('product:42')]);
  }
});
