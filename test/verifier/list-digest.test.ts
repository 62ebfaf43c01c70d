// The digest of a LIST (docs/architecture.md, "The poll digest"): a poll trusts an unchanged digest to mean that no
// object changed since the last full poll, so every change the API server can make to the list must change it, and
// nothing but a change may.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listDigest } from '../../lib/verifier/list-digest.js';
import { deployedHelmRelease } from '../fixtures/flux-objects.js';

type KubeObject = Record<string, unknown> & { metadata: Record<string, unknown>; status?: Record<string, unknown> };

/** A HelmRelease as an API server lists it: with its uid and resourceVersion. */
function listed(name: string, resourceVersion: string, uid = `uid-${name}`): KubeObject {
  const object = deployedHelmRelease('1.4.2') as KubeObject;
  object.metadata = { ...object.metadata, name, uid, resourceVersion };
  return object;
}

const list = (): KubeObject[] => [listed('web', '1001'), listed('api', '1002'), listed('worker', '1003')];

/** One object of the list changed by `change`, the others as they were. */
function changed(change: (objects: KubeObject[]) => KubeObject[]): KubeObject[] {
  return change(list());
}

describe('listDigest', () => {
  const before = listDigest(list());

  const differences: [string, KubeObject[]][] = [
    [
      'an object written again (its resourceVersion moved)',
      changed(([web, ...rest]) => [{ ...web!, metadata: { ...web!.metadata, resourceVersion: '1004' } }, ...rest]),
    ],
    [
      'an object deleted and created again (another uid)',
      changed(([, ...rest]) => [listed('web', '1001', 'new'), ...rest]),
    ],
    [
      'an object served at another apiVersion',
      changed(([web, ...rest]) => [{ ...web!, apiVersion: 'helm.toolkit.fluxcd.io/v2beta2' }, ...rest]),
    ],
    ['an object added', changed((objects) => [...objects, listed('cron', '1005')])],
    ['an object gone', changed(([, ...rest]) => rest)],
    ['an object renamed', changed(([, ...rest]) => [listed('web-2', '1001'), ...rest])],
  ];
  for (const [what, after] of differences) {
    it(`changes with ${what}`, () => {
      assert.notEqual(listDigest(after), before);
    });
  }

  it('is the same whatever the order the server lists the objects in', () => {
    assert.equal(listDigest(list().reverse()), before);
  });

  it('identifies an object by its resourceVersion, which the API server moves on every write to it', () => {
    const relisted = changed(([web, ...rest]) => [
      { ...web!, status: { ...web!.status, note: 'same version' } },
      ...rest,
    ]);
    assert.equal(listDigest(relisted), before);
  });

  it('hashes an object without a uid or resourceVersion whole, so that any change to it counts', () => {
    const bare = (note: string): KubeObject[] =>
      changed(([web, ...rest]) => [
        { ...web!, metadata: { name: 'web', namespace: 'apps' }, status: { ...web!.status, note } },
        ...rest,
      ]);
    assert.notEqual(listDigest(bare('one')), listDigest(bare('two')));
    assert.equal(listDigest(bare('one')), listDigest(bare('one')));
  });
});
