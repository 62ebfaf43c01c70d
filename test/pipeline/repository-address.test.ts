// The repository URL forms each Git host shows its users, and the API base derived from each (docs/promotion-strategies.md, "Pull
// requests"). The same function decides what `apply` accepts and where a promotion goes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { repositoryAddress, type RepositoryAddress } from '../../lib/pipeline/repository-address.js';

function address(type: GitProviderType, url: string): RepositoryAddress {
  const located = repositoryAddress(type, url);
  assert.ok(located.ok, `${url}: ${located.ok ? '' : located.problem}`);
  return located.address;
}

describe('repository addresses', () => {
  const accepted: [GitProviderType, string, Partial<RepositoryAddress>][] = [
    [
      'github',
      'https://github.com/acme/fleet.git',
      { apiUrl: 'https://api.github.com', webUrl: 'https://github.com/acme/fleet' },
    ],
    ['github', 'https://ghe.acme.example/acme/fleet', { apiUrl: 'https://ghe.acme.example/api/v3' }],
    ['gitlab', 'https://gitlab.com/acme/fleet', { projectPath: 'acme/fleet', apiUrl: 'https://gitlab.com/api/v4' }],
    [
      'gitlab',
      'https://gitlab.com/acme/platform/apps/fleet.git',
      { projectPath: 'acme/platform/apps/fleet', webUrl: 'https://gitlab.com/acme/platform/apps/fleet' },
    ],
    [
      'gitlab',
      'https://oauth2:glpat-secret@gitlab.acme.example:8443/acme/fleet/-/tree/main',
      {
        projectPath: 'acme/fleet',
        apiUrl: 'https://gitlab.acme.example:8443/api/v4',
        webUrl: 'https://gitlab.acme.example:8443/acme/fleet',
      },
    ],
    [
      'bitbucket-server',
      'https://bitbucket.acme.example/scm/ops/fleet.git',
      {
        projectKey: 'OPS',
        repositorySlug: 'fleet',
        apiUrl: 'https://bitbucket.acme.example',
        webUrl: 'https://bitbucket.acme.example/projects/OPS/repos/fleet',
      },
    ],
    [
      'bitbucket-server',
      'https://git.acme.example/bitbucket/projects/OPS/repos/fleet/browse',
      { projectKey: 'OPS', repositorySlug: 'fleet', apiUrl: 'https://git.acme.example/bitbucket' },
    ],
    [
      'bitbucket-server',
      'https://bitbucket.acme.example/scm/~alice/fleet.git',
      { projectKey: '~alice', webUrl: 'https://bitbucket.acme.example/users/alice/repos/fleet' },
    ],
    [
      'azure-devops',
      'https://dev.azure.com/acme/Platform/_git/fleet',
      { collectionUrl: 'https://dev.azure.com/acme', project: 'Platform', repository: 'fleet' },
    ],
    [
      'azure-devops',
      'https://acme@dev.azure.com/acme/Platform%20Team/_git/fleet',
      {
        project: 'Platform Team',
        webUrl: 'https://dev.azure.com/acme/Platform%20Team/_git/fleet',
      },
    ],
    ['azure-devops', 'https://dev.azure.com/acme/_git/fleet', { project: 'fleet', repository: 'fleet' }],
    [
      'azure-devops',
      'https://acme.visualstudio.com/Platform/_git/fleet',
      { collectionUrl: 'https://acme.visualstudio.com', project: 'Platform' },
    ],
    [
      'azure-devops',
      'https://acme.visualstudio.com/DefaultCollection/Platform/_git/fleet',
      { collectionUrl: 'https://acme.visualstudio.com/DefaultCollection', project: 'Platform' },
    ],
    [
      'azure-devops',
      'https://ado.acme.example/tfs/Fleet/Platform/_git/fleet',
      {
        collectionUrl: 'https://ado.acme.example/tfs/Fleet',
        project: 'Platform',
        apiUrl: 'https://ado.acme.example/tfs/Fleet',
      },
    ],
  ];
  for (const [type, url, expected] of accepted) {
    it(`${type}: ${url}`, () => {
      const found = address(type, url);
      assert.equal(found.type, type);
      for (const [field, value] of Object.entries(expected)) {
        assert.equal((found as unknown as Record<string, unknown>)[field], value, field);
      }
      assert.doesNotMatch(found.webUrl, /secret|@|\.git$/, 'the web URL carries no credentials and no .git');
    });
  }

  const refused: [GitProviderType, string, RegExp][] = [
    ['github', 'https://github.com/acme', /does not name a github repository: expected https:\/\/github.com/],
    ['gitlab', 'https://gitlab.com/fleet', /does not name a gitlab repository/],
    ['bitbucket-server', 'https://bitbucket.acme.example/OPS/fleet', /one of .*\/scm\/<PROJECT>/],
    ['azure-devops', 'https://dev.azure.com/acme/Platform/fleet', /does not name a azure-devops repository/],
    ['gitlab', 'http://gitlab.com/acme/fleet', /only HTTPS/],
    ['gitlab', 'not a url', /is not a valid URL/],
  ];
  for (const [type, url, problem] of refused) {
    it(`refuses ${type}: ${url}`, () => {
      const located = repositoryAddress(type, url);
      assert.ok(!located.ok);
      assert.match(located.problem, problem);
    });
  }

  it('never repeats the URL in a problem (it may carry a token)', () => {
    const located = repositoryAddress('gitlab', 'https://oauth2:glpat-topsecret@gitlab.com/fleet');
    assert.ok(!located.ok);
    assert.doesNotMatch(located.problem, /topsecret/);
  });
});
