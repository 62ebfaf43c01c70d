// A Bitbucket Server answer that is JSON but not of the shape the adapter reads: the error names the field that is
// wrong, as every zod problem is worded (lib/util/zod-issue.ts), and never repeats what the answer held.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod';
import { BitbucketServerAnswerError, BitbucketServerClient } from '../../lib/promotion/bitbucket-server/client.js';

const API_URL = 'https://bitbucket.example.com';

/** A client whose every request is answered 200 with this JSON. */
function answering(body: unknown): BitbucketServerClient {
  const fetch = (): Promise<Response> =>
    Promise.resolve(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));
  return new BitbucketServerClient(API_URL, { kind: 'token', token: 'token' }, { fetch, retries: 0 });
}

const Branch = z.object({ id: z.string(), latestCommit: z.string(), isDefault: z.boolean() });

async function refusal(body: unknown): Promise<string> {
  const error = await answering(body)
    .json('GET', '/rest/api/1.0/projects/P/repos/r/branches/default', Branch)
    .then(
      () => assert.fail('accepted'),
      (thrown: unknown) => thrown,
    );
  assert.ok(error instanceof BitbucketServerAnswerError, String(error));
  return error.message;
}

describe('a Bitbucket Server answer of another shape', () => {
  it('names the field that is missing or of the wrong type, never its value', async () => {
    const missing = await refusal({ id: 'refs/heads/main', isDefault: true });
    assert.match(missing, /the answer does not have the expected form \(latestCommit is missing\)/);
    const wrong = await refusal({ id: 'refs/heads/main', latestCommit: 'abc', isDefault: 'SECRET-ish' });
    assert.match(wrong, /\(isDefault must be a boolean\)/);
    assert.ok(!wrong.includes('SECRET-ish'), wrong);
  });

  it('says so when the answer is not an object at all', async () => {
    assert.match(await refusal(['SECRET-ish']), /\(the answer must be an object\)/);
  });
});
