// The order of a pipeline's environments (docs/environment-graphs.md): by default a line in the order they are
// listed, as in Weave; with `after`, a graph. An environment follows the environments its `after` names (fan-in),
// and several may follow one (fan-out). The first environment listed is the only one nothing comes before: every
// other follows at least one, and there is no cycle (the config checks both: lib/config/schema.ts), so the graph is
// rooted at the first environment and every rule here can rely on that.

/** What the graph needs of an environment: its name and, when it says so, the environments it follows. */
export interface GraphEnvironment {
  name: string;
  after?: readonly string[];
}

/** The environments `env` follows: its `after`, else the one listed before it (none for the first). */
export function predecessorsOf(environments: readonly GraphEnvironment[], env: string): string[] {
  const index = environments.findIndex((candidate) => candidate.name === env);
  const environment = environments[index];
  if (environment === undefined || index === 0) return [];
  if (environment.after !== undefined) return [...environment.after];
  const previous = environments[index - 1];
  return previous === undefined ? [] : [previous.name];
}

/** The environments that follow `env`, in the order they are listed. */
export function successorsOf(environments: readonly GraphEnvironment[], env: string): string[] {
  return environments
    .filter((candidate) => predecessorsOf(environments, candidate.name).includes(env))
    .map((candidate) => candidate.name);
}

/** Whether the pipeline uses `after` anywhere: a line keeps Weave's words (the next, the last environment). */
export function isGraph(environments: readonly GraphEnvironment[]): boolean {
  return environments.some((environment) => environment.after !== undefined);
}

/**
 * The environments with every one after all it follows, listed order kept wherever the graph allows it. Assumes a
 * valid graph (`graphProblems` finds none); an environment on a cycle is left out rather than looped on.
 */
export function walkOrder<E extends GraphEnvironment>(environments: readonly E[]): E[] {
  const ordered: E[] = [];
  const placed = new Set<string>();
  let progressed = true;
  while (progressed && ordered.length < environments.length) {
    progressed = false;
    for (const environment of environments) {
      if (placed.has(environment.name)) continue;
      if (!predecessorsOf(environments, environment.name).every((name) => placed.has(name))) continue;
      ordered.push(environment);
      placed.add(environment.name);
      progressed = true;
      break;
    }
  }
  return ordered;
}

/** A problem with the graph, at the path (below the pipeline's spec) of the field that causes it. */
export interface GraphProblem {
  path: (string | number)[];
  message: string;
}

/**
 * What makes the graph invalid: `after` on the first environment, an `after` naming an environment the pipeline
 * does not have (or itself, or one twice), and a cycle. Each names its field.
 */
export function graphProblems(environments: readonly GraphEnvironment[]): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const names = environments.map((environment) => environment.name);
  environments.forEach((environment, index) => {
    if (environment.after === undefined) return;
    if (index === 0) {
      problems.push({
        path: ['environments', 0, 'after'],
        message: 'the first environment follows nothing: every other environment comes after it; remove after',
      });
      return;
    }
    const seen = new Set<string>();
    environment.after.forEach((name, position) => {
      const path = ['environments', index, 'after', position];
      if (name === environment.name) problems.push({ path, message: `an environment cannot follow itself` });
      else if (!names.includes(name)) {
        problems.push({ path, message: `the pipeline has no environment "${name}" (it has ${names.join(', ')})` });
      } else if (seen.has(name)) problems.push({ path, message: `"${name}" is named twice` });
      seen.add(name);
    });
  });
  if (problems.length > 0) return problems;
  const ordered = new Set(walkOrder(environments).map((environment) => environment.name));
  const looped = environments.findIndex((environment) => !ordered.has(environment.name));
  const first = environments[looped];
  if (first !== undefined) {
    const cycle = cycleThrough(environments, first.name);
    problems.push({
      path: ['environments', looped, 'after'],
      message: `the environments form a cycle: ${cycle.join(' → ')}; each must come after the first environment`,
    });
  }
  return problems;
}

/** A cycle reached from `start` along predecessors, written in promotion order (`a → b → a`). */
function cycleThrough(environments: readonly GraphEnvironment[], start: string): string[] {
  const ordered = new Set(walkOrder(environments).map((environment) => environment.name));
  const path: string[] = [];
  let current = start;
  while (!path.includes(current)) {
    path.push(current);
    const unplaced = predecessorsOf(environments, current).find((name) => !ordered.has(name));
    if (unplaced === undefined) break;
    current = unplaced;
  }
  const cycle = path.slice(path.indexOf(current));
  return [...cycle, cycle[0] ?? current].reverse();
}
