import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isNewerRevision,
  revisionDigest,
  runsSourceRevision,
  sameRevision,
  sourceVersion,
} from '../../lib/flux/index.js';

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

const otherSha256 = '3b6c1f0e2d4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c';

describe('sourceVersion', () => {
  const cases: [string, string][] = [
    // OCIRepository: the tag of the artifact revision.
    [`6.5.0@sha256:${sha256}`, '6.5.0'],
    [`v6.5.0@sha256:${sha256}`, 'v6.5.0'],
    [`latest@sha256:${sha256}`, 'latest'],
    [`6.5.0/${sha256}`, '6.5.0'],
    // Pinned by digest: the digest is the only name of the version.
    [`sha256:${sha256}`, `sha256:${sha256}`],
    // ImagePolicy: the tag as selected.
    ['6.5.0', '6.5.0'],
    ['v6.5.0-rc.1', 'v6.5.0-rc.1'],
    ['main-731f7ead-1727700000', 'main-731f7ead-1727700000'],
    // An image tagged with a commit SHA is a tag, not a digest.
    [sha1, sha1],
  ];
  for (const [revision, version] of cases) {
    it(`${revision} → ${version}`, () => assert.equal(sourceVersion(revision), version));
  }
});

describe('runsSourceRevision', () => {
  const oci = `6.5.0@sha256:${sha256}`;
  const cases: { target: string; source: string; runs: boolean; why: string }[] = [
    { target: oci, source: oci, runs: true, why: 'the same revision' },
    // A Kustomization fed by the OCIRepository.
    { target: `6.5.0@sha256:${sha256}`, source: `sha256:${sha256}`, runs: true, why: 'the same digest' },
    { target: `latest@sha256:${sha256}`, source: oci, runs: true, why: 'the same digest, another tag' },
    { target: `6.5.0@sha256:${otherSha256}`, source: oci, runs: false, why: 'the tag was pushed again' },
    // A HelmRelease whose chart comes from the OCIRepository (helm-controller adds the digest's first 12 hex).
    { target: '6.5.0+0cc9a8446c95', source: oci, runs: true, why: "the tag with this digest's 12 hex" },
    { target: '6.5.0+3b6c1f0e2d4a', source: oci, runs: false, why: "another digest's 12 hex" },
    { target: '6.4.0+0cc9a8446c95', source: oci, runs: false, why: 'this digest but another version' },
    { target: '6.5.0', source: oci, runs: true, why: 'the tag (helm-controller digest tracking off)' },
    {
      target: '6.5.0',
      source: `v6.5.0@sha256:${sha256}`,
      runs: true,
      why: 'the tag, compared as helm-controller does',
    },
    { target: '6.5.1', source: oci, runs: false, why: 'another version' },
    { target: '6.5.0-rc.1', source: oci, runs: false, why: 'a prerelease of it' },
    { target: '6.5.0+0cc9a8446c95', source: `sha256:${sha256}`, runs: true, why: "a digest-only source's 12 hex" },
    { target: '6.5.0', source: `sha256:${sha256}`, runs: false, why: 'nothing ties it to a digest-only source' },
    { target: '6.5.0+4', source: oci, runs: true, why: 'the tag pulled by version with valuesFiles' },
    // An ImagePolicy's tag.
    { target: '6.5.0', source: '6.5.0', runs: true, why: 'the same text' },
    { target: '6.5.0+4', source: '6.5.0', runs: true, why: 'the HelmChart generation of valuesFiles' },
    { target: '6.5.0+0cc9a8446c95', source: '6.5.0', runs: true, why: 'an OCI digest the tag cannot contradict' },
    { target: '6.5.0+a4303ff0f6fb.2', source: '6.5.0', runs: false, why: 'a chart built from a Git commit' },
    { target: '6.5.0+build.7', source: '6.5.0', runs: false, why: "the chart's own build metadata" },
    { target: '6.5.1+4', source: '6.5.0', runs: false, why: 'another version' },
    { target: '6.5.0', source: 'v6.5.0', runs: true, why: 'the same semantic version' },
    { target: `6.5.0@sha256:${sha256}`, source: '6.5.0', runs: true, why: 'an OCI artifact pulled by that tag' },
    { target: `6.5.1@sha256:${sha256}`, source: '6.5.0', runs: false, why: 'an OCI artifact of another tag' },
    { target: `main@sha1:${sha1}`, source: 'main', runs: false, why: 'a Git branch is not an image tag' },
    { target: `main@sha1:${sha1}`, source: oci, runs: false, why: 'a Git commit' },
  ];
  for (const { target, source, runs, why } of cases) {
    it(`${target} ${runs ? 'runs' : 'does not run'} ${source}: ${why}`, () =>
      assert.equal(runsSourceRevision(target, source), runs));
  }
});
