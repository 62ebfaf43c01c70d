// The frame every dashboard page shares: the style sheet and script served by the command itself (no CDN: the
// dashboard works offline), the navigation, and <main>, the part the script swaps when the data changes.
import { html, type Html } from './html.js';

/** The pages in the navigation; `current` marks the one shown. */
export type DashboardSection = 'fleet' | 'history' | 'metrics' | 'none';

export interface LayoutInput {
  title: string;
  section: DashboardSection;
  /** What the dashboard reads: the backend's description (a data directory or a table name, never a secret). */
  backend: string;
  main: Html;
}

export function layout({ title, section, backend, main }: LayoutInput): Html {
  const link = (href: string, label: string, name: DashboardSection) =>
    html`<a href="${href}" ${section === name ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · pipelinectl dashboard</title>
        <link rel="stylesheet" href="/assets/dashboard.css" />
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
        <script src="/assets/dashboard.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <p><strong>pipelinectl dashboard</strong></p>
          <nav aria-label="Dashboard">
            ${link('/', 'Fleet', 'fleet')} ${link('/history', 'History', 'history')}
            ${link('/metrics', 'Metrics', 'metrics')}
          </nav>
          <p class="backend">${backend}</p>
        </header>
        <main id="main">${main}</main>
        <footer><p id="live-status" aria-live="polite">not live (JavaScript is off): reload to update</p></footer>
      </body>
    </html> `;
}

/** A page that only says something: an error, a refusal, a missing pipeline. */
export function messagePage(input: { title: string; backend: string; message: string; back?: string }): Html {
  return layout({
    title: input.title,
    section: 'none',
    backend: input.backend,
    main: html`<h1>${input.title}</h1>
      <p class="notice problem" role="alert">${input.message}</p>
      <p><a href="${input.back ?? '/'}">Back</a></p>`,
  });
}
