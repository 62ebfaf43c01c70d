// What a warm Lambda container keeps between invocations: built once, except a build that failed, which the next
// invocation tries again (a missing secret created since must not need a new container).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { perContainer } from '../../lib/runtime/per-container.js';

describe('perContainer', () => {
  it('builds on the first call and returns the same value afterwards', () => {
    let builds = 0;
    const get = perContainer(() => ({ build: ++builds }));
    assert.equal(builds, 0);
    const first = get();
    assert.equal(get(), first);
    assert.equal(builds, 1);
  });

  it('builds again after a build that threw', () => {
    let builds = 0;
    const get = perContainer(() => {
      builds++;
      if (builds === 1) throw new Error('no such secret');
      return builds;
    });
    assert.throws(get, /no such secret/);
    assert.equal(get(), 2);
    assert.equal(get(), 2);
  });

  it('shares one pending build, and builds again after one that rejected', async () => {
    let builds = 0;
    const get = perContainer(async () => {
      builds++;
      await new Promise((resolve) => setImmediate(resolve));
      if (builds === 1) throw new Error('the notification webhook secret has no "token" key');
      return builds;
    });
    const [a, b] = [get(), get()];
    assert.equal(a, b);
    await assert.rejects(a, /no "token" key/);
    assert.equal(await get(), 2);
    assert.equal(await get(), 2);
    assert.equal(builds, 2);
  });
});
