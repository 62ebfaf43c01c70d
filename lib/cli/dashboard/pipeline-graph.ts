// A pipeline's environments drawn as a graph, in inline SVG made on the server like the metrics page's charts
// (charts.ts): no script, nothing fetched, presentation attributes only (the Content-Security-Policy allows no inline
// style), colours by class so that the style sheet's light and dark themes both apply. What follows what is read
// from lib/pipeline/environment-graph.ts, so a line (no `after`) is drawn as a row and a graph in columns. The image
// says the graph in words (its <title> and <desc>), each environment is a group with its own <title>, and the state is
// written in words on each node: the colour only repeats it.
import type { EnvironmentReason, EnvironmentState } from '../../decision/index.js';
import { predecessorsOf, successorsOf, walkOrder, type GraphEnvironment } from '../../pipeline/environment-graph.js';
import { html, type Html } from './html.js';

/** What a node shows of an environment, besides what the graph needs (its name and `after`). */
export interface GraphNodeEnvironment extends GraphEnvironment {
  state: EnvironmentState;
  /** The state in words (environmentStateText), as the tiles and `status` say it. */
  stateText: string;
  reason: EnvironmentReason;
  /** The revision it runs, as the tiles write it (runningRevisionText): `6.9.2`, `6.9.2 (2 of 3)`, `-`. */
  revision: string;
}

/** Where one environment is drawn: its column (depth) and row, and its box's top-left corner in the image. */
export interface PlacedEnvironment {
  name: string;
  /** The longest path from the first environment: 0 for the first, 1 for those right after it, … */
  column: number;
  /** Its place among the environments of its column, in the order they are listed. */
  row: number;
  x: number;
  y: number;
}

export interface GraphLayout {
  /** In the order the environments are listed. */
  nodes: PlacedEnvironment[];
  /** One per predecessor of each environment, in the order the environments are listed. */
  edges: { from: string; to: string }[];
  width: number;
  height: number;
  nodeWidth: number;
  nodeHeight: number;
}

const NODE_HEIGHT = 68;
const COLUMN_GAP = 44;
const ROW_GAP = 14;
const MARGIN = 2;
const PADDING_X = 10;
/** Widths of a character, generous averages, so that a text cut to fit the box does fit it in any system font. */
const NAME_CHAR = 8.8;
const DETAIL_CHAR = 8;
const MIN_NODE_WIDTH = 140;
const MAX_NODE_WIDTH = 288;
const ARROW_LENGTH = 8;

/**
 * Places the environments in columns by depth (the longest path from the first environment, so that each stands
 * right of everything it follows) and, within a column, in rows in the order they are listed. A column with fewer
 * environments than the tallest is centred on it, so that a fan-in sits between the branches it joins.
 */
export function layoutEnvironments(environments: readonly GraphEnvironment[], nodeWidth = MIN_NODE_WIDTH): GraphLayout {
  const depth = new Map<string, number>();
  for (const environment of walkOrder(environments)) {
    const before = predecessorsOf(environments, environment.name).map((name) => (depth.get(name) ?? 0) + 1);
    depth.set(environment.name, Math.max(0, ...before));
  }
  // A stored pipeline has no cycle (the config refuses one); were one there, its environments go in a last column.
  const deepest = Math.max(0, ...depth.values());
  const columnOf = (name: string) => depth.get(name) ?? deepest + 1;
  const rowsIn = new Map<number, number>();
  const placed = environments.map(({ name }) => {
    const column = columnOf(name);
    const row = rowsIn.get(column) ?? 0;
    rowsIn.set(column, row + 1);
    return { name, column, row };
  });
  const tallest = Math.max(1, ...rowsIn.values());
  const columns = Math.max(1, ...[...rowsIn.keys()].map((column) => column + 1));
  const rowStep = NODE_HEIGHT + ROW_GAP;
  const nodes = placed.map((node) => {
    const centring = ((tallest - (rowsIn.get(node.column) ?? 1)) * rowStep) / 2;
    return {
      ...node,
      x: MARGIN + node.column * (nodeWidth + COLUMN_GAP),
      y: MARGIN + centring + node.row * rowStep,
    };
  });
  const edges = environments.flatMap(({ name }) =>
    predecessorsOf(environments, name).map((from) => ({ from, to: name })),
  );
  return {
    nodes,
    edges,
    width: 2 * MARGIN + columns * nodeWidth + (columns - 1) * COLUMN_GAP,
    height: 2 * MARGIN + tallest * NODE_HEIGHT + (tallest - 1) * ROW_GAP,
    nodeWidth,
    nodeHeight: NODE_HEIGHT,
  };
}

/**
 * The graph in words, each group of environments with what follows them: `staging → prod-eu, prod-us; prod-eu,
 * prod-us → global`. Environments followed by the same ones are named together; empty for a single environment.
 */
export function graphInWords(environments: readonly GraphEnvironment[]): string {
  const groups: { from: string[]; to: string[] }[] = [];
  for (const { name } of walkOrder(environments)) {
    const to = successorsOf(environments, name);
    if (to.length === 0) continue;
    const same = groups.find((group) => group.to.join('\n') === to.join('\n'));
    if (same) same.from.push(name);
    else groups.push({ from: [name], to });
  }
  return groups.map((group) => `${group.from.join(', ')} → ${group.to.join(', ')}`).join('; ');
}

/** What one environment's node says to a screen reader and in its tooltip. */
function nodeTitle(environments: readonly GraphEnvironment[], env: GraphNodeEnvironment): string {
  const after = predecessorsOf(environments, env.name);
  return `${env.name}: ${env.revision}, ${env.stateText} (${env.reason})${after.length > 0 ? `; after ${after.join(', ')}` : ''}`;
}

/** `text` cut to `max` characters, an ellipsis marking the cut (the node's <title> has it whole). */
function fit(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length <= max ? text : `${characters.slice(0, Math.max(1, max - 1)).join('')}…`;
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * The environments of `pipeline` (its `namespace/name`) as an SVG image: a box per environment with its name, the
 * revision it runs and its state in words, coloured by the state, and an arrow from each environment it follows.
 */
export function pipelineGraph(pipeline: string, environments: readonly GraphNodeEnvironment[]): Html {
  const longest = (pick: (env: GraphNodeEnvironment) => string, width: number) =>
    Math.max(0, ...environments.map((env) => Array.from(pick(env)).length * width));
  const wanted = Math.max(
    longest((env) => env.name, NAME_CHAR),
    longest((env) => env.revision, DETAIL_CHAR),
    longest((env) => env.stateText, DETAIL_CHAR),
  );
  const nodeWidth = Math.ceil(Math.min(MAX_NODE_WIDTH, Math.max(MIN_NODE_WIDTH, wanted + 2 * PADDING_X)));
  const layout = layoutEnvironments(environments, nodeWidth);
  // How many characters of a text fit the box (the box was made wide enough for every text that fits the widest box).
  const room = (charWidth: number) => Math.floor((nodeWidth - 2 * PADDING_X) / charWidth + 1e-6);
  const byName = new Map(layout.nodes.map((node) => [node.name, node]));

  const edges = layout.edges.map(({ from, to }) => {
    const start = byName.get(from);
    const end = byName.get(to);
    if (!start || !end) return '';
    const x1 = start.x + nodeWidth;
    const y1 = start.y + NODE_HEIGHT / 2;
    // The line stops short of the box by the arrowhead's length, so that the head's tip touches the box.
    const x2 = end.x - ARROW_LENGTH - 1;
    const y2 = end.y + NODE_HEIGHT / 2;
    const bend = (x2 - x1) / 2;
    return html`<path
      class="edge"
      data-from="${from}"
      data-to="${to}"
      d="M ${round(x1)} ${round(y1)} C ${round(x1 + bend)} ${round(y1)}, ${round(x2 - bend)} ${round(y2)}, ${round(x2)} ${round(y2)}"
      marker-end="url(#pipeline-graph-arrow)"
    />`;
  });

  const nodes = environments.map((env) => {
    const node = byName.get(env.name);
    if (!node) return '';
    return html`<g
      class="node state-${env.state}"
      data-env="${env.name}"
      transform="translate(${round(node.x)} ${round(node.y)})"
    >
      <title>${nodeTitle(environments, env)}</title>
      <rect width="${nodeWidth}" height="${NODE_HEIGHT}" rx="6" stroke="currentColor" stroke-width="2" />
      <text class="node-name" x="${PADDING_X}" y="21" font-size="14" font-weight="600">
        ${fit(env.name, room(NAME_CHAR))}
      </text>
      <text class="node-revision" x="${PADDING_X}" y="40" font-size="13">
        ${fit(env.revision, room(DETAIL_CHAR))}
      </text>
      <text class="node-state" x="${PADDING_X}" y="59" font-size="13" font-weight="600" fill="currentColor">
        ${fit(env.stateText, room(DETAIL_CHAR))}
      </text>
    </g>`;
  });

  const words = graphInWords(environments);
  const title = words === '' ? `The environment of ${pipeline}` : `The environments of ${pipeline}: ${words}`;
  const states = environments.map((env) => `${env.name}: ${env.revision}, ${env.stateText}.`).join(' ');
  // Drawn at its own size, scrolled sideways when wider than the page: shrunk to fit, a long line's words would be
  // too small to read.
  return html`<div class="pipeline-graph-scroll">
    <svg
      class="pipeline-graph"
      id="pipeline-graph"
      viewBox="0 0 ${layout.width} ${round(layout.height)}"
      width="${layout.width}"
      height="${round(layout.height)}"
      role="img"
      aria-labelledby="pipeline-graph-title pipeline-graph-desc"
    >
      <title id="pipeline-graph-title">${title}</title>
      <desc id="pipeline-graph-desc">${states}</desc>
      <defs>
        <marker
          id="pipeline-graph-arrow"
          viewBox="0 0 ${ARROW_LENGTH} 8"
          refX="0"
          refY="4"
          markerWidth="${ARROW_LENGTH}"
          markerHeight="8"
          markerUnits="userSpaceOnUse"
          orient="auto"
        >
          <path class="arrowhead" d="M 0 0 L ${ARROW_LENGTH} 4 L 0 8 z" />
        </marker>
      </defs>
      <g class="edges" aria-hidden="true">${edges}</g>
      ${nodes}
    </svg>
  </div>`;
}
