// Who the promotion commit names as its author (and committer). Weave committed as "Promotion Server" with no e-mail
// (docs/weave-compatibility.md); GitHub's API requires an e-mail, so the default has one on the reserved `.invalid`
// domain: no one can own it, so GitHub links the commit to no account. A deployment may name its own author
// (COMMIT_AUTHOR_NAME / COMMIT_AUTHOR_EMAIL on AWS, `--commit-author-name` / `--commit-author-email` for serve).

export interface CommitAuthor {
  name: string;
  email: string;
}

export const DEFAULT_COMMIT_AUTHOR: Readonly<CommitAuthor> = Object.freeze({
  name: 'Promotion Server',
  email: 'promotion-server@pipeline-controller.invalid',
});

/** The author from what a deployment sets, each part it leaves out taken from the default. */
export function commitAuthorOf(given: { name?: string; email?: string }): CommitAuthor {
  return { name: given.name ?? DEFAULT_COMMIT_AUTHOR.name, email: given.email ?? DEFAULT_COMMIT_AUTHOR.email };
}

/** git writes `name <email>` on one line: what would break that line, or make no sense as an address. */
export function commitAuthorProblems(author: CommitAuthor): string[] {
  const problems: string[] = [];
  if (author.name.trim() === '') problems.push('the commit author name must not be empty');
  else if (/[<>\r\n]/.test(author.name)) {
    problems.push('the commit author name must not contain "<", ">" or a line break');
  }
  if (!/^[^\s<>@]+@[^\s<>@]+$/.test(author.email)) {
    problems.push('the commit author e-mail must be an address such as name@example.com, without spaces, "<" or ">"');
  }
  return problems;
}
