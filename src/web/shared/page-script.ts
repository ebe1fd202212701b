/**
 * The privacy dashboard's one page script (docs/web.md "Privacy dashboard", "How it is built"),
 * served from this origin with a content hash like htmx (`assets.ts`), so the strict CSP stays: no
 * inline script, no `eval`. It listens to htmx 2's events ("Events": `htmx:beforeRequest`,
 * `htmx:beforeSwap`, `htmx:afterRequest`) on the consent forms of "My consents" (`form.attribute`,
 * `dashboard/consents.tsx`) and makes a save's outcome visible where the person is looking:
 * - in flight: the form is `aria-busy`, its Save button reads "Saving…" (htmx's `hx-sync="this:drop"`
 *   sends no second request), and the row's live region says so;
 * - saved: the live region (`role="status"`, WCAG 2.2 SC 4.1.3 Status Messages) says what was saved;
 * - not saved (offline, the session ended, a 4xx or 5xx): the form goes back to the stored value
 *   (`form.reset()`: the server rendered it as the default), htmx's swap into the page's top
 *   `#flash` is cancelled, and the live region next to the control says what happened and what to
 *   do: sign in again, check the connection, or try again. A withdrawal (GDPR Art. 7(3)) thus never
 *   looks done when it is not.
 * Focus stays on the control: a failed save changes no element, and after a saved one the control
 * of the same id in the new row takes the focus back (htmx's own restoring, checked here).
 * The Days field belongs to AskMe (docs/api.md "AskMe with days"): it is disabled, and so not sent,
 * unless AskMe is chosen. Without script the form posts and the server ignores Days for Allow and
 * Disallow (`dashboard/routes.ts`).
 *
 * Kept as text, like the stylesheet (`styles.ts`): the exact bytes served are the ones hashed, in
 * every build and test run. Plain ES2020, no dependency but htmx's events.
 */
export const PAGE_SCRIPT = `(() => {
  'use strict';
  const ROW = 'form.attribute';
  const focusIds = new WeakMap();

  const rowOf = (elt) => (elt && elt.matches && elt.matches(ROW) ? elt : null);
  const statusOf = (form) => document.getElementById(form.id + '-status');
  const chosen = (form) => {
    const checked = form.querySelector('input[name="consented"]:checked');
    return checked ? checked.value : '';
  };

  // Days only with AskMe: a disabled field is not sent.
  const syncDays = (form) => {
    const days = form.querySelector('input[name="days"]');
    if (days) days.disabled = chosen(form) !== 'AskMe';
  };
  const syncAll = (root) => {
    if (!root || !root.querySelectorAll) return;
    if (rowOf(root)) syncDays(root);
    for (const form of root.querySelectorAll(ROW)) syncDays(form);
  };

  const say = (form, kind, text, link) => {
    const status = statusOf(form);
    if (!status) return;
    status.className = 'save-status ' + kind;
    // Text only (textContent, a link built as an element): nothing here is read as HTML.
    status.textContent = text;
    if (link) {
      status.append(' ');
      const a = document.createElement('a');
      a.href = link.href;
      a.textContent = link.text;
      status.append(a);
    }
    // Where the person is looking: a message that grew below the window's edge is brought into view.
    status.scrollIntoView({ block: 'nearest' });
  };

  const busy = (form, on) => {
    const button = form.querySelector('button[type="submit"]');
    if (on) {
      form.setAttribute('aria-busy', 'true');
      if (button) {
        button.setAttribute('aria-disabled', 'true');
        button.dataset.label = button.textContent;
        button.textContent = 'Saving…';
      }
    } else {
      form.removeAttribute('aria-busy');
      if (button) {
        button.removeAttribute('aria-disabled');
        if (button.dataset.label) button.textContent = button.dataset.label;
      }
    }
  };

  // The server's own words for a refused save: its error fragment's text (error-page.tsx).
  // Threat: markup in an answer run in the page (XSS): it is parsed inert and only its text is shown.
  const serverMessage = (xhr) => {
    try {
      const doc = new DOMParser().parseFromString(xhr.responseText || '', 'text/html');
      const text = (doc.body.textContent || '').replace(/\\s+/g, ' ').trim();
      return text.slice(0, 300);
    } catch {
      return '';
    }
  };

  const failed = (form, xhr) => {
    form.reset();
    syncDays(form);
    busy(form, false);
    const back = 'Your choice is back to what is stored: ' + (form.dataset.stored || 'unchanged') + '.';
    const status = xhr ? xhr.status : 0;
    if (status === 0) {
      say(form, 'error', 'Not saved: Assent could not be reached (are you offline?). ' + back +
        ' Check your connection, then press Save again.');
    } else if (status === 401) {
      const next = encodeURIComponent('/dashboard/consents#' + form.id);
      say(form, 'error', 'Not saved: your session has ended. ' + back + ' Sign in again, then make this choice again.',
        { href: '/dashboard/sign-in?next=' + next, text: 'Sign in again' });
    } else if (status >= 500) {
      say(form, 'error', 'Not saved: ' + (serverMessage(xhr) || 'something went wrong on our side.') + ' ' + back +
        ' Press Save to try again.');
    } else {
      say(form, 'error', 'Not saved: ' + (serverMessage(xhr) || 'the change was refused.') + ' ' + back);
    }
  };

  document.addEventListener('change', (e) => {
    const form = e.target && e.target.form;
    if (rowOf(form) && e.target.name === 'consented') syncDays(form);
  });
  document.addEventListener('DOMContentLoaded', () => syncAll(document.body));
  document.addEventListener('htmx:load', (e) => syncAll(e.detail.elt));

  document.addEventListener('htmx:beforeRequest', (e) => {
    const form = rowOf(e.detail.elt);
    if (!form) return;
    const active = document.activeElement;
    focusIds.set(form, active && form.contains(active) && active.id ? active.id : '');
    busy(form, true);
    say(form, 'pending', 'Saving…');
  });

  // A refused save stays in its row: no swap into the page's top alert area (#flash).
  document.addEventListener('htmx:beforeSwap', (e) => {
    const form = rowOf(e.detail.requestConfig && e.detail.requestConfig.elt);
    if (form && e.detail.isError) e.detail.shouldSwap = false;
  });

  document.addEventListener('htmx:afterRequest', (e) => {
    const old = rowOf(e.detail.requestConfig && e.detail.requestConfig.elt);
    if (!old) return;
    if (e.detail.successful !== true) return failed(old, e.detail.xhr);
    const form = document.getElementById(old.id) || old;
    busy(form, false);
    say(form, 'ok', 'Saved: ' + (form.dataset.stored || chosen(form)) + '.');
    const id = focusIds.get(old);
    if (id && (!document.activeElement || document.activeElement === document.body)) {
      const again = document.getElementById(id);
      if (again) again.focus();
    }
  });
})();
`;
