// The queue messages' wire format: round trips, and rejections whose reasons never repeat the body.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeMessage,
  encodeMessage,
  HINT_MAX_LENGTH,
  InvalidMessageError,
  MESSAGE_SCHEMA_VERSION,
  readsTargets,
} from '../../lib/queue/messages.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { app, ONE_OF_EACH } from './queue-contract.js';

function decoded(body: string): QueueMessage {
  const result = decodeMessage(body);
  if (!result.ok) assert.fail(`rejected: ${result.reason}`);
  return result.message;
}

const SECRET = 'Sup3rS3cret';

function body(fields: Record<string, unknown>): string {
  return JSON.stringify({ v: 1, ...fields });
}

const validApp = app('podinfo').app;

describe('encodeMessage / decodeMessage', () => {
  for (const message of ONE_OF_EACH) {
    it(`round-trips a ${message.type} message`, () => {
      const encoded = encodeMessage(message);
      assert.deepEqual(decoded(encoded), message);
      const json = JSON.parse(encoded) as Record<string, unknown>;
      assert.equal(json['v'], MESSAGE_SCHEMA_VERSION);
      assert.equal(json['type'], message.type);
    });
  }

  it('round-trips the optional fields left out', () => {
    const messages: QueueMessage[] = [
      app('podinfo', 3),
      { type: 'check-pipeline', pipeline: { namespace: 'default', name: 'podinfo' }, cause: 'apply' },
      { ...app('podinfo'), cause: 'poll', hint: {} },
    ];
    for (const message of messages) assert.deepEqual(decoded(encodeMessage(message)), message);
  });

  it('puts the version first and writes no field the schema does not know', () => {
    const extra = { ...app('podinfo'), note: 'dropped' } as QueueMessage;
    assert.equal(
      encodeMessage(extra),
      '{"v":1,"type":"check-app","app":{"cluster":{"namespace":"flux-system","name":"dev-eu"},"kind":"HelmRelease","namespace":"podinfo","name":"podinfo"},"cause":"event","attempt":0}',
    );
  });

  it('tolerates and drops unknown fields when decoding', () => {
    assert.deepEqual(decoded(body({ ...app('podinfo'), addedLater: true })), app('podinfo'));
  });

  it('cuts a long hint instead of rejecting it', () => {
    const message = decoded(encodeMessage({ ...app('podinfo'), hint: { reason: 'x'.repeat(5000) } }));
    assert.equal(message.type === 'check-app' && message.hint?.reason?.length, HINT_MAX_LENGTH);
  });

  it('refuses to encode an invalid message, naming the field but not the value', () => {
    const bad = {
      type: 'poll',
      cluster: { namespace: 'flux-system', name: '' },
      kind: SECRET,
    } as unknown as QueueMessage;
    assert.throws(
      () => encodeMessage(bad),
      (error: unknown) =>
        error instanceof InvalidMessageError &&
        error.message === 'cannot encode: cluster.name must not be empty' &&
        !error.message.includes(SECRET),
    );
  });
});

describe('check-pipeline: whether the targets are read first', () => {
  const pipeline = { namespace: 'flux-system', name: 'podinfo' };
  const cases: { name: string; fields: Record<string, unknown>; reads: boolean }[] = [
    { name: 'a webhook check', fields: { cause: 'promotion-webhook', readTargets: true }, reads: true },
    { name: 'a retry', fields: { cause: 'retry', readTargets: false }, reads: false },
    { name: 'the field over the cause', fields: { cause: 'apply', readTargets: false }, reads: false },
    // Sent by the version before the field existed, still in the queue during a deploy: the cause decides.
    { name: 'an old webhook check', fields: { cause: 'promotion-webhook' }, reads: true },
    { name: 'an old apply check', fields: { cause: 'apply' }, reads: true },
    { name: 'an old retry', fields: { cause: 'retry' }, reads: false },
    { name: 'an old poll check', fields: { cause: 'poll' }, reads: false },
    { name: 'an old approval check (a cause never sent)', fields: { cause: 'approval' }, reads: false },
  ];
  for (const { name, fields, reads } of cases) {
    it(`${name}: ${reads ? 'reads the targets' : 'decides from the records'}`, () => {
      const message = decoded(body({ type: 'check-pipeline', pipeline, ...fields }));
      assert.ok(message.type === 'check-pipeline');
      assert.equal(readsTargets(message), reads);
      assert.deepEqual(decoded(encodeMessage(message)), message, 'encodes as it decoded');
    });
  }

  it('a check-app with the cause no version sends still decodes', () => {
    assert.equal(decoded(body({ ...app('podinfo'), cause: 'poll' })).type, 'check-app');
  });
});

describe('decodeMessage rejections', () => {
  const cases: { name: string; body: string; reason: string }[] = [
    { name: 'empty', body: '  ', reason: 'empty body' },
    { name: 'not JSON', body: `{${SECRET}`, reason: 'malformed JSON' },
    { name: 'a JSON string', body: JSON.stringify(SECRET), reason: 'not a message: expected a JSON object' },
    { name: 'a JSON array', body: JSON.stringify([SECRET]), reason: 'not a message: expected a JSON object' },
    { name: 'null', body: 'null', reason: 'not a message: expected a JSON object' },
    {
      name: 'no version',
      body: JSON.stringify({ ...app(SECRET) }),
      reason: 'not a message: schema version v is missing',
    },
    { name: 'another version', body: JSON.stringify({ ...app(SECRET), v: 2 }), reason: 'unsupported schema version' },
    {
      name: 'a version string',
      body: JSON.stringify({ ...app(SECRET), v: '1' }),
      reason: 'unsupported schema version',
    },
    { name: 'no type', body: body({ app: validApp }), reason: 'invalid message: type is missing' },
    {
      name: 'an unknown type',
      body: body({ type: SECRET }),
      reason:
        'invalid message: type is not one of check-app, check-pipeline, poll, poll-clusters, promote, sync-config-source',
    },
    {
      name: 'an empty app name',
      body: body({ ...app(''), hint: { reason: SECRET } }),
      reason: 'invalid message: app.name must not be empty',
    },
    {
      name: 'an unknown app kind',
      body: body({ ...app('x'), app: { ...validApp, kind: SECRET } }),
      reason: 'invalid message: app.kind is not an allowed value',
    },
    {
      name: 'a missing cluster',
      body: body({ ...app('x'), app: { ...validApp, cluster: undefined } }),
      reason: 'invalid message: app.cluster is missing',
    },
    {
      name: 'an unknown cause',
      body: body({ ...app('x'), cause: SECRET }),
      reason: 'invalid message: cause is not an allowed value',
    },
    {
      name: 'a negative attempt',
      body: body({ ...app('x'), attempt: -1 }),
      reason: 'invalid message: attempt is too small',
    },
    {
      name: 'a fractional attempt',
      body: body({ ...app('x'), attempt: 0.5 }),
      reason: 'invalid message: attempt must be an integer',
    },
    {
      name: 'an attempt string',
      body: body({ ...app('x'), attempt: SECRET }),
      reason: 'invalid message: attempt must be a number',
    },
    {
      name: 'a hint that is not text',
      body: body({ ...app('x'), hint: { revision: 42 } }),
      reason: 'invalid message: hint.revision must be a string',
    },
    {
      name: 'a poll of an unknown kind',
      body: body({ type: 'poll', cluster: { namespace: 'a', name: 'b' }, kind: SECRET }),
      reason: 'invalid message: kind is not an allowed value',
    },
    {
      name: 'a check-pipeline with an empty env',
      body: body({ type: 'check-pipeline', pipeline: { namespace: 'a', name: 'b' }, env: '', cause: 'apply' }),
      reason: 'invalid message: env must not be empty',
    },
    {
      name: 'a check-pipeline whose readTargets is not a boolean',
      body: body({
        type: 'check-pipeline',
        pipeline: { namespace: 'a', name: 'b' },
        cause: 'apply',
        readTargets: SECRET,
      }),
      reason: 'invalid message: readTargets must be a boolean',
    },
    {
      name: 'a check-pipeline whose recordedBefore is not a time',
      body: body({
        type: 'check-pipeline',
        pipeline: { namespace: 'a', name: 'b' },
        cause: 'polled-change',
        recordedBefore: SECRET,
      }),
      reason: 'invalid message: recordedBefore must be an ISO 8601 time',
    },
    {
      name: 'a promote without revision',
      body: body({ type: 'promote', pipeline: { namespace: 'a', name: SECRET }, env: 'prod' }),
      reason: 'invalid message: revision is missing',
    },
  ];
  for (const { name, body: input, reason } of cases) {
    it(`rejects ${name}`, () => {
      const result = decodeMessage(input);
      assert.deepEqual(result, { ok: false, reason });
      assert.ok(!reason.includes(SECRET), 'the reason does not repeat the body');
    });
  }
});
