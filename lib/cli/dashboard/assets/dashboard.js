/* global document, window, EventSource, fetch, DOMParser */
// Live updates without a reload: the server says on /events when the fleet or its audit trail changed; the page then
// fetches itself again and swaps its <main> in place, keeping keyboard focus where it was, what a person has
// chosen in a form but not yet sent (a history filter, a freeze reason) and which <details> they opened (the legend). Without JavaScript every page still works; it
// is only not live.
(() => {
  const status = document.getElementById('live-status');
  const say = (text) => {
    if (status) status.textContent = text;
  };
  if (typeof EventSource !== 'function') return;

  let refreshing = false;
  let again = false;

  /** Something that identifies the focused element across a swap: its id, or its link target and text. */
  const focusKey = () => {
    const element = document.activeElement;
    if (!element || element === document.body) return undefined;
    return { id: element.id, href: element.getAttribute('href'), text: element.textContent };
  };
  const refocus = (key) => {
    if (!key) return;
    const candidates = key.id
      ? [document.getElementById(key.id)]
      : [...document.querySelectorAll('main a, main button')];
    const match = candidates.find(
      (element) =>
        element && (key.id || (element.getAttribute('href') === key.href && element.textContent === key.text)),
    );
    if (match) match.focus();
  };

  /** Whether a form control holds something other than what the page was served with. */
  const edited = (control) => {
    if (control.options) return [...control.options].some((option) => option.selected !== option.defaultSelected);
    if (control.type === 'checkbox' || control.type === 'radio') return control.checked !== control.defaultChecked;
    return 'defaultValue' in control && control.value !== control.defaultValue;
  };
  /** The edited controls of the forms in <main>, by form action and control name. */
  const editsOf = (main) =>
    [...main.querySelectorAll('form [name]')].filter(edited).map((control) => ({
      action: control.form?.getAttribute('action'),
      name: control.getAttribute('name'),
      value: control.value,
      checked: control.checked,
    }));
  const reapply = (main, edits) => {
    for (const edit of edits) {
      const control = [...main.querySelectorAll('form [name]')].find(
        (candidate) =>
          candidate.getAttribute('name') === edit.name && candidate.form?.getAttribute('action') === edit.action,
      );
      if (!control) continue;
      if (control.type === 'checkbox' || control.type === 'radio') control.checked = edit.checked;
      else control.value = edit.value;
    }
  };

  const refresh = async () => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      const response = await fetch(window.location.href, { headers: { accept: 'text/html' } });
      if (!response.ok) return;
      const next = new DOMParser().parseFromString(await response.text(), 'text/html').querySelector('main');
      const current = document.querySelector('main');
      if (next && current && next.innerHTML !== current.innerHTML) {
        const key = focusKey();
        const edits = editsOf(current);
        const opened = [...current.querySelectorAll('details[id]')].filter((d) => d.open).map((d) => d.id);
        current.innerHTML = next.innerHTML;
        reapply(current, edits);
        for (const id of opened) {
          const details = document.getElementById(id);
          if (details) details.open = true;
        }
        refocus(key);
      }
      say(`live, updated ${new Date().toLocaleTimeString()}`);
    } catch {
      say('live updates interrupted; retrying');
    } finally {
      refreshing = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  };

  const events = new EventSource('/events');
  events.addEventListener('open', () => say('live'));
  events.addEventListener('change', () => void refresh());
  events.addEventListener('error', () => say('live updates interrupted; retrying'));
  window.addEventListener('pagehide', () => events.close());
})();
