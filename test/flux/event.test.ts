import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseFluxEvent, watchedKindOfEvent } from '../../lib/flux/index.js';
import type { FluxAppKind, FluxEvent } from '../../lib/flux/index.js';
import type { WatchedKind } from '../../lib/pipeline/model.js';
import {
  EVENT_A_HELM_UPGRADE,
  EVENT_A_HMAC_KEY,
  EVENT_A_SIGNATURE,
  EVENT_B_HELM_OCI_INSTALL,
  EVENT_C_KUSTOMIZATION_SUCCEEDED,
  EVENT_D_HELM_UPGRADE_FAILED,
  EVENT_D_KUSTOMIZATION_HEALTH_CHECK_FAILED,
  EVENT_PREFIXED_KUSTOMIZATION,
} from '../fixtures/flux-events.js';

function parse(body: string): FluxEvent {
  const result = parseFluxEvent(body);
  if (!result.ok) assert.fail(`rejected: ${result.reason}`);
  return result.event;
}

function withMetadata(metadata: Record<string, string>): string {
  return JSON.stringify({ ...(JSON.parse(EVENT_A_HELM_UPGRADE) as object), metadata });
}

describe('flux-events fixtures', () => {
  it('example A is byte-exact: 508 bytes, signed as in the test vector', () => {
    assert.equal(Buffer.byteLength(EVENT_A_HELM_UPGRADE), 508);
    const signature = createHmac('sha256', EVENT_A_HMAC_KEY).update(EVENT_A_HELM_UPGRADE).digest('hex');
    assert.equal(`sha256=${signature}`, EVENT_A_SIGNATURE);
  });
});

describe('parseFluxEvent', () => {
  const examples: { name: string; body: string; kind: FluxAppKind; expected: Partial<FluxEvent> }[] = [
    {
      name: 'A: HelmRelease upgrade',
      body: EVENT_A_HELM_UPGRADE,
      kind: 'HelmRelease',
      expected: {
        severity: 'info',
        timestamp: '2025-10-01T12:00:05Z',
        reason: 'UpgradeSucceeded',
        message: 'Helm upgrade succeeded for release apps/podinfo.v3 with chart podinfo@6.9.2',
        metadata: { 'app-version': '6.9.2', revision: '6.9.2' },
        revisionHint: '6.9.2',
        reportingController: 'helm-controller',
        reportingInstance: 'helm-controller-5f7d8c9b6-x2k4q',
      },
    },
    {
      name: 'B: OCI install with Alert eventMetadata and an annotation',
      body: EVENT_B_HELM_OCI_INSTALL,
      kind: 'HelmRelease',
      expected: { reason: 'InstallSucceeded', revisionHint: '6.6.1+0cc9a8446c95' },
    },
    {
      name: 'C: Kustomization succeeded',
      body: EVENT_C_KUSTOMIZATION_SUCCEEDED,
      kind: 'Kustomization',
      expected: {
        reason: 'ReconciliationSucceeded',
        metadata: { commit_status: 'update', revision: 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1' },
        revisionHint: 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
        reportingController: 'kustomize-controller',
      },
    },
    {
      name: 'D: HelmRelease upgrade failed',
      body: EVENT_D_HELM_UPGRADE_FAILED,
      kind: 'HelmRelease',
      expected: { severity: 'error', reason: 'UpgradeFailed', revisionHint: '6.9.3' },
    },
    {
      name: 'D: Kustomization health check failed',
      body: EVENT_D_KUSTOMIZATION_HEALTH_CHECK_FAILED,
      kind: 'Kustomization',
      expected: {
        severity: 'error',
        reason: 'HealthCheckFailed',
        revisionHint: 'main@sha1:5e6f9d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e',
      },
    },
  ];
  for (const { name, body, kind, expected } of examples) {
    it(`parses example ${name}`, () => {
      const event = parse(body);
      assert.equal(watchedKindOfEvent(event), kind);
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(event[key as keyof FluxEvent], value, key);
    });
  }

  it('keeps the involved object and the Alert metadata of example B', () => {
    const event = parse(EVENT_B_HELM_OCI_INSTALL);
    assert.deepEqual(event.involvedObject, {
      kind: 'HelmRelease',
      namespace: 'podinfo',
      name: 'podinfo',
      uid: '9f1c6e2a-3b4d-4c5e-8f6a-7b8c9d0e1f2a',
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      resourceVersion: '88123',
    });
    assert.equal(event.metadata['cluster'], 'prod-eu-1');
    assert.equal(event.metadata['deploymentID'], 'e076e315-5a48-41c3-81c8-8d8bdee7d74d');
  });

  it('keeps a multi-line message as sent', () => {
    assert.match(parse(EVENT_D_HELM_UPGRADE_FAILED).message, /context deadline exceeded\n\nLast Helm logs:/);
  });

  it('strips group prefixes from metadata keys', () => {
    const event = parse(EVENT_PREFIXED_KUSTOMIZATION);
    assert.deepEqual(event.metadata, {
      deploymentID: 'e076e315-5a48-41c3-81c8-8d8bdee7d74d',
      commit_status: 'update',
      revision: 'main/731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
    });
    assert.equal(event.revisionHint, 'main/731f7eaddfb6af01cb2173e18f0f75b0ba780ef1');
  });

  const hints: { name: string; metadata: Record<string, string>; hint: string | undefined }[] = [
    { name: 'stripped', metadata: { revision: '6.9.2' }, hint: '6.9.2' },
    { name: 'helm-prefixed', metadata: { 'helm.toolkit.fluxcd.io/revision': '6.9.2' }, hint: '6.9.2' },
    {
      name: 'kustomize-prefixed',
      metadata: { 'kustomize.toolkit.fluxcd.io/revision': 'main@sha1:abc1234' },
      hint: 'main@sha1:abc1234',
    },
    { name: 'event-prefixed', metadata: { 'event.toolkit.fluxcd.io/revision': '6.9.2' }, hint: '6.9.2' },
    {
      name: 'source-prefixed (an OCIRepository)',
      metadata: { 'source.toolkit.fluxcd.io/revision': '6.5.0@sha256:0cc9a8446c95' },
      hint: '6.5.0@sha256:0cc9a8446c95',
    },
    {
      name: 'image-prefixed (an ImagePolicy)',
      metadata: { 'image.toolkit.fluxcd.io/revision': '6.5.0' },
      hint: '6.5.0',
    },
    {
      name: 'stripped before prefixed',
      metadata: { 'helm.toolkit.fluxcd.io/revision': '6.9.1', revision: '6.9.2' },
      hint: '6.9.2',
    },
    {
      name: 'stripped after prefixed',
      metadata: { revision: '6.9.2', 'helm.toolkit.fluxcd.io/revision': '6.9.1' },
      hint: '6.9.2',
    },
    { name: 'an unknown prefix is not stripped', metadata: { 'example.com/revision': '6.9.2' }, hint: undefined },
    { name: 'empty', metadata: { revision: '' }, hint: undefined },
    { name: 'none', metadata: {}, hint: undefined },
  ];
  for (const { name, metadata, hint } of hints) {
    it(`gives the revision hint from ${name} metadata`, () => {
      assert.equal(parse(withMetadata(metadata)).revisionHint, hint);
    });
  }

  it('gives empty metadata when the event has none', () => {
    const body = JSON.parse(EVENT_A_HELM_UPGRADE) as Record<string, unknown>;
    delete body['metadata'];
    const event = parse(JSON.stringify(body));
    assert.deepEqual(event.metadata, {});
    assert.equal(event.revisionHint, undefined);
  });

  it('keeps a __proto__ metadata key as plain data', () => {
    const event = parse(EVENT_A_HELM_UPGRADE.replace('"metadata":{', '"metadata":{"__proto__":"x",'));
    assert.equal(Object.getPrototypeOf(event.metadata), Object.prototype);
    assert.equal(event.revisionHint, '6.9.2');
  });

  it('tolerates fields it does not know, and leaves them out', () => {
    const body = JSON.parse(EVENT_A_HELM_UPGRADE) as Record<string, Record<string, unknown>>;
    const event = parse(
      JSON.stringify({ ...body, correlationID: 'x', involvedObject: { ...body['involvedObject'], extra: 1 } }),
    );
    assert.equal(event.reason, 'UpgradeSucceeded');
    assert.equal('correlationID' in event, false);
    assert.equal('extra' in event.involvedObject, false);
  });

  const SECRET = 'SENTINEL-7f3a';
  const valid = JSON.parse(EVENT_A_HELM_UPGRADE) as Record<string, Record<string, unknown>>;
  const without = (field: string) => JSON.stringify({ ...valid, [field]: undefined, note: SECRET });
  const withObject = (fields: Record<string, unknown>) =>
    JSON.stringify({ ...valid, involvedObject: { ...valid['involvedObject'], ...fields } });
  const rejected: { name: string; body: string; reason: string }[] = [
    { name: 'an empty body', body: '', reason: 'empty body' },
    { name: 'a blank body', body: ' \n\t', reason: 'empty body' },
    { name: 'malformed JSON', body: `{"involvedObject": ${SECRET}`, reason: 'malformed JSON' },
    { name: 'a truncated body', body: EVENT_A_HELM_UPGRADE.slice(0, 200), reason: 'malformed JSON' },
    { name: 'an array', body: `["${SECRET}"]`, reason: 'not a Flux event: expected a JSON object' },
    { name: 'a string', body: `"${SECRET}"`, reason: 'not a Flux event: expected a JSON object' },
    { name: 'null', body: 'null', reason: 'not a Flux event: expected a JSON object' },
    {
      name: 'some other JSON object',
      body: `{"text":"${SECRET}"}`,
      reason: 'not a Flux event: involvedObject is missing',
    },
    {
      name: 'no name',
      body: withObject({ name: undefined, uid: SECRET }),
      reason: 'not a Flux event: involvedObject.name is missing',
    },
    {
      name: 'an empty kind',
      body: withObject({ kind: '' }),
      reason: 'not a Flux event: involvedObject.kind must not be empty',
    },
    {
      name: 'a numeric namespace',
      body: withObject({ namespace: 7 }),
      reason: 'not a Flux event: involvedObject.namespace must be a string',
    },
    { name: 'no severity', body: without('severity'), reason: 'not a Flux event: severity is missing' },
    { name: 'no timestamp', body: without('timestamp'), reason: 'not a Flux event: timestamp is missing' },
    { name: 'no message', body: without('message'), reason: 'not a Flux event: message is missing' },
    { name: 'no reason', body: without('reason'), reason: 'not a Flux event: reason is missing' },
    {
      name: 'no reportingController',
      body: without('reportingController'),
      reason: 'not a Flux event: reportingController is missing',
    },
    {
      name: 'a metadata value that is not a string',
      body: JSON.stringify({ ...valid, metadata: { [`<${SECRET}>`]: 1 } }),
      reason: 'not a Flux event: metadata has an invalid entry',
    },
    {
      name: 'metadata that is not a map',
      body: JSON.stringify({ ...valid, metadata: [SECRET] }),
      reason: 'not a Flux event: metadata must be a record',
    },
  ];
  for (const { name, body, reason } of rejected) {
    it(`rejects ${name} with a short reason that does not repeat the input`, () => {
      const result = parseFluxEvent(body);
      assert.deepEqual(result, { ok: false, reason });
      assert.ok(!reason.includes(SECRET));
    });
  }
});

describe('watchedKindOfEvent', () => {
  const event = parse(EVENT_A_HELM_UPGRADE);
  const cases: { kind: string; apiVersion: string | undefined; expected: WatchedKind | undefined }[] = [
    { kind: 'HelmRelease', apiVersion: 'helm.toolkit.fluxcd.io/v2', expected: 'HelmRelease' },
    { kind: 'HelmRelease', apiVersion: 'helm.toolkit.fluxcd.io/v2beta1', expected: 'HelmRelease' },
    { kind: 'HelmRelease', apiVersion: undefined, expected: 'HelmRelease' },
    { kind: 'HelmRelease', apiVersion: 'kustomize.toolkit.fluxcd.io/v1', expected: undefined },
    { kind: 'HelmRelease', apiVersion: 'v1', expected: undefined },
    { kind: 'Kustomization', apiVersion: 'kustomize.toolkit.fluxcd.io/v1', expected: 'Kustomization' },
    { kind: 'Kustomization', apiVersion: undefined, expected: 'Kustomization' },
    { kind: 'Kustomization', apiVersion: 'kustomize.config.k8s.io/v1beta1', expected: undefined },
    // A pipeline's source: read like an app when an event names it.
    { kind: 'ImagePolicy', apiVersion: 'image.toolkit.fluxcd.io/v1', expected: 'ImagePolicy' },
    { kind: 'ImagePolicy', apiVersion: 'image.toolkit.fluxcd.io/v1beta2', expected: 'ImagePolicy' },
    { kind: 'ImagePolicy', apiVersion: undefined, expected: 'ImagePolicy' },
    { kind: 'ImagePolicy', apiVersion: 'source.toolkit.fluxcd.io/v1', expected: undefined },
    { kind: 'OCIRepository', apiVersion: 'source.toolkit.fluxcd.io/v1', expected: 'OCIRepository' },
    { kind: 'OCIRepository', apiVersion: 'source.toolkit.fluxcd.io/v1beta2', expected: 'OCIRepository' },
    { kind: 'OCIRepository', apiVersion: 'example.com/v1', expected: undefined },
    // Other Flux objects are not read.
    { kind: 'GitRepository', apiVersion: 'source.toolkit.fluxcd.io/v1', expected: undefined },
    { kind: 'HelmChart', apiVersion: 'source.toolkit.fluxcd.io/v1', expected: undefined },
    { kind: 'ImageRepository', apiVersion: 'image.toolkit.fluxcd.io/v1', expected: undefined },
    { kind: 'ImageUpdateAutomation', apiVersion: 'image.toolkit.fluxcd.io/v1', expected: undefined },
    { kind: 'toString', apiVersion: undefined, expected: undefined },
    { kind: '__proto__', apiVersion: undefined, expected: undefined },
  ];
  for (const { kind, apiVersion, expected } of cases) {
    it(`${kind} ${apiVersion ?? '(no apiVersion)'} → ${expected ?? 'not read'}`, () => {
      const involvedObject = { ...event.involvedObject, kind, apiVersion };
      if (apiVersion === undefined) delete involvedObject.apiVersion;
      assert.equal(watchedKindOfEvent({ ...event, involvedObject }), expected);
    });
  }
});
