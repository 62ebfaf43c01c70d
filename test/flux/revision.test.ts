import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNewerRevision, revisionDigest, sameRevision } from '../../lib/flux/index.js';

const sha1 = '731f7eaddfb6af01cb2173e18f0f75b0ba780ef1';
const otherSha1 = '5e6f9d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e';
const sha256 = '0cc9a8446c95009ef382f5eade883a67c257f77d50f84e78ecef2aac9428d1e5';

describe('revisionDigest', () => {
  const cases: [string, string | undefined][] = [
    [`main@sha1:${sha1}`, sha1],
    [`feature/x@sha1:${sha1}`, sha1],
    [`refs/pull/1/head@sha1:${sha1}`, sha1],
    [`v1.2.3@sha1:${sha1}`, sha1],
    [`sha1:${sha1}`, sha1],
    [`latest@sha256:${sha256}`, sha256],
    [`sha256:${sha256}`, sha256],
    [`main/${sha1}`, sha1],
    [`latest/${sha256}`, sha256],
    ['6.9.2', undefined],
    ['6.6.1+0cc9a8446c95', undefined],
    ['6.0.3+4', undefined],
    ['1234567', undefined],
    ['main', undefined],
  ];
  for (const [revision, digest] of cases) {
    it(`${revision} → ${digest ?? 'no digest'}`, () => assert.equal(revisionDigest(revision), digest));
  }
});

describe('sameRevision', () => {
  const cases: [string, string, boolean][] = [
    [`main@sha1:${sha1}`, `main@sha1:${sha1}`, true],
    [`main/${sha1}`, `main@sha1:${sha1}`, true],
    [`latest@sha256:${sha256}`, `sha256:${sha256}`, true],
    [`main@sha1:${sha1}`, `main@sha1:${otherSha1}`, false],
    [`main/${sha1}`, `main/${otherSha1}`, false],
    ['6.9.2', '6.9.2', true],
    ['6.9.2', '6.9.3', false],
    ['6.6.1+0cc9a8446c95', '6.6.1+3b6c1f0e2d4a', false],
    ['6.6.1+0cc9a8446c95', '6.6.1', false],
  ];
  for (const [a, b, same] of cases) {
    it(`${a} ${same ? '=' : '≠'} ${b}`, () => {
      assert.equal(sameRevision(a, b), same);
      assert.equal(sameRevision(b, a), same);
    });
  }
});

describe('isNewerRevision', () => {
  const cases: [string, string, boolean][] = [
    ['6.9.3', '6.9.2', true],
    ['6.9.2', '6.9.3', false],
    ['6.10.0', '6.9.9', true],
    ['6.9.2', '6.9.2', false],
    ['6.6.1+3b6c1f0e2d4a', '6.6.1+0cc9a8446c95', false],
    [`v1.2.4@sha1:${otherSha1}`, `v1.2.3@sha1:${sha1}`, true],
    [`main@sha1:${otherSha1}`, `main@sha1:${sha1}`, false],
  ];
  for (const [revision, than, newer] of cases) {
    it(`${revision} ${newer ? 'is' : 'is not'} newer than ${than}`, () =>
      assert.equal(isNewerRevision(revision, than), newer));
  }
});
