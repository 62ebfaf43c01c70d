// Azure DevOps' pull request statuses in the fake Azure DevOps (fake-azure-devops.ts), as Microsoft documents them
// (Git / Pull Request Statuses, api-version 7.x): `POST …/pullRequests/{pullRequestId}/statuses` with `state`
// (`notSet`, `pending`, `succeeded`, `failed`, `error`, `notApplicable`, by name or number), `description`,
// `context: {name, genre}` (`context.name` required: 400 otherwise) and `targetUrl`; answered 200 with the status and
// its `id`; `GET` lists them, oldest first. Each post is a new iteration of that context: Azure shows the newest.
import { HostError, jsonObject, ok, text, type Reply } from './git-host-kernel.js';

export const AZURE_STATUS_STATES = { notset: 0, pending: 1, succeeded: 2, failed: 3, error: 4, notapplicable: 5 };

export interface FakeAzurePullRequestStatus {
  id: number;
  state: keyof typeof AZURE_STATUS_STATES;
  description: string;
  context: { name: string; genre: string };
  targetUrl: string;
  creationDate: string;
}

const invalid = (message: string) =>
  new HostError(400, {
    $id: '1',
    innerException: null,
    message,
    typeName: 'Microsoft.TeamFoundation.SourceControl.WebServer.InvalidArgumentValueException',
    typeKey: 'InvalidArgumentValueException',
    errorCode: 0,
    eventId: 3000,
  });

export class FakeAzurePullRequestStatuses {
  private readonly byPullRequest = new WeakMap<object, FakeAzurePullRequestStatus[]>();
  private nextId = 1;

  /** A pull request's statuses, oldest first. */
  of(pull: object): FakeAzurePullRequestStatus[] {
    let list = this.byPullRequest.get(pull);
    if (!list) this.byPullRequest.set(pull, (list = []));
    return list;
  }

  post(pull: object, body: unknown): Reply {
    const input = jsonObject(body, () => invalid('Value cannot be null.\r\nParameter name: status'));
    const context = typeof input.context === 'object' && input.context !== null ? input.context : {};
    const { name, genre } = context as Record<string, unknown>;
    const given = input.state ?? 'notSet';
    const word = typeof given === 'string' || typeof given === 'number' ? String(given) : JSON.stringify(given);
    const state = Object.entries(AZURE_STATUS_STATES).find(
      ([key, number]) => String(number) === word || key === word.toLowerCase(),
    )?.[0] as FakeAzurePullRequestStatus['state'] | undefined;
    if (state === undefined) throw invalid(`The value '${word}' is not valid for state.`);
    const status: FakeAzurePullRequestStatus = {
      id: this.nextId++,
      state,
      description: text(input.description),
      context: { name: text(name), genre: text(genre) },
      targetUrl: text(input.targetUrl),
      creationDate: new Date().toISOString(),
    };
    this.of(pull).push(status);
    return ok(json(status));
  }

  list(pull: object): Reply {
    const value = this.of(pull).map(json);
    return ok({ count: value.length, value });
  }
}

function json(status: FakeAzurePullRequestStatus): Record<string, unknown> {
  const states = ['notSet', 'pending', 'succeeded', 'failed', 'error', 'notApplicable'];
  return { ...status, state: states[AZURE_STATUS_STATES[status.state]], iterationId: status.id };
}
