// Small charts as inline SVG, drawn on the server: no chart library, nothing fetched, nothing run in the browser.
// Shapes are coloured by class (the style sheet maps them to the light or dark theme's variables) and text uses
// currentColor; presentation attributes only, since the Content-Security-Policy allows no inline style. Each chart is
// an image with a <title> and <desc> that say what it shows, and each mark has its own <title> (a tooltip, and what a
// screen reader reads); the page puts the same figures in a table next to it.
import { html, type Html } from './html.js';

/** What a chart's marks are coloured as: a deployment, a failure, a success, one still undecided, a duration. */
export type MarkKind = 'deployment' | 'failed' | 'succeeded' | 'pending' | 'duration';

export interface ChartLabel {
  /** Unique on the page: the chart's <title> and <desc> are referenced by it. */
  id: string;
  title: string;
  description: string;
}

const FONT = 10;

function frame(label: ChartLabel, width: number, height: number, marks: Html): Html {
  const titleId = `${label.id}-title`;
  const descId = `${label.id}-desc`;
  return html`<svg
    class="chart"
    id="${label.id}"
    viewBox="0 0 ${width} ${height}"
    width="${width}"
    height="${height}"
    role="img"
    aria-labelledby="${titleId} ${descId}"
    font-size="${FONT}"
  >
    <title id="${titleId}">${label.title}</title>
    <desc id="${descId}">${label.description}</desc>
    ${marks}
  </svg>`;
}

const round = (value: number) => Math.round(value * 10) / 10;

export interface ColumnChartInput extends ChartLabel {
  /** One column per value, left to right. */
  values: readonly number[];
  /** Each column's tooltip. */
  columnTitles: readonly string[];
  /** Under the first and the last column. */
  startLabel: string;
  endLabel: string;
}

/** Columns over a baseline (deployments per day), the largest value named on the left. */
export function columnChart(input: ColumnChartInput): Html {
  const width = 320;
  const height = 64;
  const left = 24;
  const top = 6;
  const plot = { width: width - left, height: height - top - 16 };
  const max = Math.max(1, ...input.values);
  const step = plot.width / Math.max(1, input.values.length);
  const columns = input.values.map((value, i) => {
    const h = (value / max) * plot.height;
    // A zero is drawn as a hairline, so that an empty day still shows where it is.
    return html`<rect
      class="mark ${value === 0 ? 'empty' : 'deployment'}"
      x="${round(left + i * step + step * 0.15)}"
      y="${round(top + plot.height - Math.max(h, 0.5))}"
      width="${round(Math.max(step * 0.7, 0.8))}"
      height="${round(Math.max(h, 0.5))}"
      ><title>${input.columnTitles[i] ?? ''}</title></rect
    >`;
  });
  const baseline = top + plot.height;
  return frame(
    input,
    width,
    height,
    html`<line class="axis" x1="${left}" y1="${baseline}" x2="${width}" y2="${baseline}" />
      <text x="${left - 4}" y="${top + FONT - 2}" text-anchor="end" fill="currentColor">${max}</text>
      <text x="${left - 4}" y="${baseline}" text-anchor="end" fill="currentColor">0</text>
      ${columns}
      <text x="${left}" y="${height - 3}" fill="currentColor">${input.startLabel}</text>
      <text x="${width}" y="${height - 3}" text-anchor="end" fill="currentColor">${input.endLabel}</text>`,
  );
}

export interface DotChartInput extends ChartLabel {
  /** Left to right, evenly spaced. */
  points: readonly { value: number; title: string }[];
  /** Horizontal lines across the chart (the median, the p90). */
  guides: readonly { value: number; label: string }[];
  /** How a value reads on the axis. */
  format: (value: number) => string;
}

/** One dot per sample (a revision's lead time), with guide lines such as the median and the p90. */
export function dotChart(input: DotChartInput): Html {
  const width = 320;
  const height = 96;
  const left = 40;
  const top = 8;
  const right = 60;
  const plot = { width: width - left - right, height: height - top - 12 };
  const max = Math.max(1, ...input.points.map((point) => point.value), ...input.guides.map((guide) => guide.value));
  const y = (value: number) => round(top + plot.height - (value / max) * plot.height);
  const step = plot.width / Math.max(1, input.points.length);
  const dots = input.points.map(
    (point, i) =>
      html`<circle class="mark duration" cx="${round(left + step * (i + 0.5))}" cy="${y(point.value)}" r="3.5"
        ><title>${point.title}</title></circle
      >`,
  );
  const guides = input.guides.map(
    (guide) =>
      html`<line class="guide" x1="${left}" y1="${y(guide.value)}" x2="${left + plot.width}" y2="${y(guide.value)}" />
        <text x="${left + plot.width + 4}" y="${y(guide.value) + 3}" fill="currentColor">${guide.label}</text>`,
  );
  const baseline = top + plot.height;
  return frame(
    input,
    width,
    height,
    html`<line class="axis" x1="${left}" y1="${baseline}" x2="${left + plot.width}" y2="${baseline}" />
      <text x="${left - 4}" y="${top + FONT - 2}" text-anchor="end" fill="currentColor">${input.format(max)}</text>
      <text x="${left - 4}" y="${baseline}" text-anchor="end" fill="currentColor">0</text>
      ${guides}${dots}
      <text x="${left}" y="${height - 1}" fill="currentColor">oldest</text>
      <text x="${left + plot.width}" y="${height - 1}" text-anchor="end" fill="currentColor">newest</text>`,
  );
}

export interface BarRow {
  label: string;
  /** Drawn left to right, end to end. */
  segments: readonly { value: number; kind: MarkKind; title: string }[];
  /** Right of the bar. */
  text: string;
}

export interface BarRowsInput extends ChartLabel {
  rows: readonly BarRow[];
  /** The value a full bar stands for. */
  max: number;
}

/** One horizontal bar per row (an environment), made of coloured segments, with its figure beside it. */
export function barRows(input: BarRowsInput): Html {
  const width = 320;
  const rowHeight = 18;
  const labelWidth = 72;
  const barWidth = 150;
  const height = Math.max(1, input.rows.length) * rowHeight + 4;
  const max = input.max > 0 ? input.max : 1;
  const rows = input.rows.map((row, i) => {
    const top = 4 + i * rowHeight;
    let x = labelWidth;
    const segments = row.segments.map((segment) => {
      const w = (segment.value / max) * barWidth;
      const rect = html`<rect
        class="mark ${segment.kind}"
        x="${round(x)}"
        y="${top}"
        width="${round(w)}"
        height="${rowHeight - 6}"
        ><title>${segment.title}</title></rect
      >`;
      x += w;
      return segment.value > 0 ? rect : '';
    });
    return html`<text x="${labelWidth - 6}" y="${top + FONT}" text-anchor="end" fill="currentColor">
        ${shortened(row.label)}
      </text>
      <rect class="track" x="${labelWidth}" y="${top}" width="${barWidth}" height="${rowHeight - 6}" />
      ${segments}
      <text x="${labelWidth + barWidth + 6}" y="${top + FONT}" fill="currentColor">${row.text}</text>`;
  });
  return frame(input, width, height, html`${rows}`);
}

/** A label that fits the chart's label column; the full name is in the chart's description and the table. */
function shortened(label: string): string {
  return label.length > 12 ? `${label.slice(0, 11)}…` : label;
}
