// Bitbucket Server's build status API in the fake Bitbucket Server (fake-bitbucket-server.ts), as Atlassian documents
// it (REST build status 1.0): `POST /rest/build-status/1.0/commits/{commitId}` with `state` (`INPROGRESS`,
// `SUCCESSFUL`, `FAILED`), `key`, `url` (each required: 400 otherwise), `name`, `description`; answered 204. A
// status with the key of an earlier one on the same commit replaces it. `GET` lists a commit's statuses, newest first.
import { HostError, jsonObject, text, type Reply } from './git-host-kernel.js';

export const BITBUCKET_BUILD_STATES = ['INPROGRESS', 'SUCCESSFUL', 'FAILED'] as const;

export interface FakeBitbucketBuildStatus {
  state: (typeof BITBUCKET_BUILD_STATES)[number];
  key: string;
  name: string;
  url: string;
  description: string;
  dateAdded: number;
}

const VALIDATION = 'com.atlassian.bitbucket.validation.ArgumentValidationException';
const invalid = (field: string, message: string) =>
  new HostError(400, { errors: [{ context: field, message, exceptionName: VALIDATION }] });

export class FakeBitbucketBuildStatuses {
  private readonly byCommit = new Map<string, FakeBitbucketBuildStatus[]>();

  /** A commit's statuses, one per key, newest first. */
  of(commit: string): FakeBitbucketBuildStatus[] {
    return [...(this.byCommit.get(commit) ?? [])].sort((a, b) => b.dateAdded - a.dateAdded);
  }

  post(commit: string, body: unknown): Reply {
    const input = jsonObject(body, () => invalid('body', 'The request body is not valid JSON'));
    const state = BITBUCKET_BUILD_STATES.find((known) => known === input.state);
    if (!state) throw invalid('state', 'state must be one of INPROGRESS, SUCCESSFUL, FAILED');
    const [key, url] = [text(input.key), text(input.url)];
    if (key === '') throw invalid('key', 'key must not be blank');
    if (url === '') throw invalid('url', 'url must not be blank');
    const status = {
      state,
      key,
      url,
      name: text(input.name),
      description: text(input.description),
      dateAdded: Date.now(),
    };
    const kept = (this.byCommit.get(commit) ?? []).filter((earlier) => earlier.key !== key);
    this.byCommit.set(commit, [...kept, status]);
    return { status: 204 };
  }

  list(commit: string): Reply {
    const values = this.of(commit);
    return { status: 200, body: { size: values.length, limit: 25, start: 0, isLastPage: true, values } };
  }
}
