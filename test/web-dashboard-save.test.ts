/**
 * Saving a consent on the privacy dashboard in Chromium (docs/web.md "Privacy dashboard", the page
 * script src/web/shared/page-script.ts): a withdrawal (GDPR Art. 7(3)) must never look done when it is not.
 * While a save is in flight its row shows it and sends nothing twice; afterwards the row's live
 * region (WCAG 2.2 SC 4.1.3), next to the control and in view, says what happened: saved, or not
 * saved with what to do (offline, the session ended in another tab, a 400), the control back at the
 * stored value, which the JSON API confirms is unchanged, and the focus still on the control.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import type { Locator, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, browserGate, watchErrors } from './helpers/chromium.js';
import { ALICE, consentStatus, type Dashboard, individual, signInPage, startDashboard } from './helpers/web.js';

browserGate('web-dashboard-save.test.ts');

/** One consent row of "My consents": its form, live region and Save button, and its IDs. */
interface Row {
  form: Locator;
  status: Locator;
  save: Locator;
  purposeId: string;
  attributeId: string;
}

/** The row of the page's last editable data attribute, scrolled to the bottom of the page. */
async function lastRow(page: Page): Promise<Row> {
  const form = page.locator('form.attribute').last();
  const id = (await form.getAttribute('id'))!;
  const [purposeId, attributeId] = (await form.getAttribute('action'))!.split('/').slice(-2) as [string, string];
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  return { form, status: page.locator(`#${id}-status`), save: page.locator(`#${id}-save`), purposeId, attributeId };
}

/** Whether an element's box lies wholly inside the page's viewport. */
async function inViewport(page: Page, what: Locator): Promise<boolean> {
  const box = (await what.boundingBox())!;
  const view = page.viewportSize()!;
  // One pixel for the sub-pixel edge a scroll to "nearest" leaves.
  return box.y >= -1 && box.y + box.height <= view.height + 1 && box.x >= 0 && box.x + box.width <= view.width;
}

/** The message shown for a save, checked to be in view, just below the row's Save button, and the page's top alert area empty. */
async function messageNextTo(page: Page, row: Row): Promise<string> {
  await expect.poll(() => row.status.textContent()).toMatch(/^(Saved|Not saved)/);
  expect(await inViewport(page, row.status), 'the message is in view').toBe(true);
  const button = (await row.save.boundingBox())!;
  const message = (await row.status.boundingBox())!;
  expect(message.y, 'the message is below the Save button').toBeGreaterThanOrEqual(button.y);
  expect(message.y - (button.y + button.height), 'the message is next to the Save button').toBeLessThan(100);
  expect(await page.locator('#flash').textContent()).toBe('');
  return (await row.status.textContent())!;
}

type User = { username: string; password: string };

/** The id of the element that has the focus. */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

describe.skipIf(!browserAvailable)('saving a consent on the dashboard (Chromium)', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  });
  afterAll(() => d?.stop());

  /**
   * After a failed save: the row back at the stored Disallow (not `tried`), its button idle, the focus
   * still on it, and the JSON API's value as `before`.
   */
  async function expectNotSaved(page: Page, row: Row, user: User, before: unknown, tried: string): Promise<void> {
    expect(await row.form.getByLabel('Disallow').isChecked()).toBe(true);
    expect(await row.form.getByLabel(tried, { exact: true }).isChecked()).toBe(false);
    expect(await row.save.textContent()).toBe('Save');
    expect(await row.form.getAttribute('aria-busy')).toBeNull();
    expect(await focused(page)).toBe(await row.save.getAttribute('id'));
    expect(await consentStatus(d, user, row.purposeId, row.attributeId)).toEqual(before);
  }

  /** Signs in on a phone-sized window, so that the top of the page is out of view at the last attribute. */
  async function phonePage(user: User): Promise<Page> {
    const page = await signInPage(d, user);
    await page.setViewportSize({ width: 375, height: 480 });
    return page;
  }

  it('a save in flight shows it and is not sent twice; once saved, the live region next to the control says so and the focus stays', async () => {
    const page = await phonePage(ALICE);
    const errors = watchErrors(page);
    const row = await lastRow(page);
    expect(await row.status.getAttribute('role')).toBe('status');
    // Every save the page sends passes here: the first is held in flight, then its connection fails; later ones go on.
    const sent: Route[] = [];
    let fail!: () => void;
    const failed = new Promise<void>((resolve) => {
      fail = resolve;
    });
    await page.route('**/dashboard/consents/**', async (route) => {
      sent.push(route);
      if (sent.length > 1) return route.continue();
      await failed;
      await route.abort('internetdisconnected');
    });
    const days = row.form.getByLabel('Days (0 = no limit)');
    await row.form.getByLabel('AskMe').check();
    await days.fill('30');
    await row.save.click();
    await expect.poll(() => sent.length).toBe(1);
    expect(await row.form.getAttribute('aria-busy')).toBe('true');
    expect(await row.save.textContent()).toBe('Saving…');
    expect(await row.status.textContent()).toBe('Saving…');
    // Pressing again while in flight (the button is aria-disabled, so forced), Enter on the button and in the Days
    // field: htmx drops them (hx-sync "this:drop"), nothing is queued to go after, and the form is not posted natively.
    await row.save.click({ force: true });
    await page.keyboard.press('Enter');
    await days.press('Enter');
    fail();
    expect(await messageNextTo(page, row)).toMatch(/^Not saved: Assent could not be reached/);
    expect(await row.form.getByLabel('AskMe').isChecked()).toBe(false);

    // Tried again: this save is the second the page sends (a queued press would have been the second), and it is saved.
    await row.form.getByLabel('AskMe').check();
    await days.fill('30');
    await row.save.click();
    const text = await messageNextTo(page, row);
    expect(text).toBe('Saved: AskMe, 30 of 30 days left.');
    expect(sent.length).toBe(2);
    expect(await row.form.getAttribute('aria-busy')).toBeNull();
    expect(await row.save.textContent()).toBe('Save');
    expect(await focused(page)).toBe(await row.save.getAttribute('id'));
    expect(await consentStatus(d, ALICE, row.purposeId, row.attributeId)).toMatchObject({ Consent: 'AskMe', Days: 30 });
    // The aborted request's network line and htmx's own report of it are the only console errors: no CSP
    // violation, no script error.
    expect(errors.filter((e) => !/^(Failed to load resource|htmx:(afterRequest|sendError), )/.test(e))).toEqual([]);
    await page.close();
  });

  it('offline: not saved, says to check the connection, the control back at the stored value, which is unchanged', async () => {
    const bea = individual('bea');
    const page = await phonePage(bea);
    const row = await lastRow(page);
    const before = await consentStatus(d, bea, row.purposeId, row.attributeId);
    expect(before.Consent).toBe('Disallow');
    await row.form.getByLabel('Allow', { exact: true }).check();
    await row.save.focus();
    await d.chrome.context.setOffline(true);
    try {
      await row.save.press('Enter');
      const text = await messageNextTo(page, row);
      expect(text).toMatch(/^Not saved: Assent could not be reached \(are you offline\?\)/);
      expect(text).toContain('Your choice is back to what is stored: Disallow.');
      expect(text).toContain('Check your connection, then press Save again.');
    } finally {
      await d.chrome.context.setOffline(false);
    }
    await expectNotSaved(page, row, bea, before, 'Allow');
    await page.close();
  });

  it('session ended in another tab while scrolled to the last attribute: not saved, says to sign in again next to the control', async () => {
    const cleo = individual('cleo');
    const page = await phonePage(cleo);
    const row = await lastRow(page);
    expect(await inViewport(page, page.locator('#flash')), 'the top of the page is out of view').toBe(false);
    const before = await consentStatus(d, cleo, row.purposeId, row.attributeId);
    // Another tab of the same browser signs out: the session ends on the server and its cookie goes.
    const other = await d.chrome.context.newPage();
    await other.goto(`${d.t.url}/dashboard/consents`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.waitForURL(`${d.t.url}/dashboard/sign-in`);
    await other.close();

    await row.form.getByLabel('AskMe').check();
    await row.save.click();
    const text = await messageNextTo(page, row);
    expect(text).toMatch(/^Not saved: your session has ended\./);
    expect(text).toContain('Your choice is back to what is stored: Disallow.');
    expect(text).toContain('Sign in again, then make this choice again.');
    const link = row.status.getByRole('link', { name: 'Sign in again' });
    expect(await link.getAttribute('href')).toBe(
      `/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/consents#${await row.form.getAttribute('id')}`)}`,
    );
    await expectNotSaved(page, row, cleo, before, 'AskMe');
    await page.close();
  });

  it('a 400: not saved, the server’s reason next to the control, the control and Days back at the stored value', async () => {
    const dan = individual('dan');
    const page = await phonePage(dan);
    const row = await lastRow(page);
    const before = await consentStatus(d, dan, row.purposeId, row.attributeId);
    await row.form.getByLabel('AskMe').check();
    const days = row.form.getByLabel('Days (0 = no limit)');
    // A number the form's schema refuses (at most four digits), past the browser's own check.
    await days.evaluate((input) => input.removeAttribute('max'));
    await days.fill('99999');
    await row.save.click();
    const text = await messageNextTo(page, row);
    expect(text).toBe(
      'Not saved: The form could not be read. Check what you entered and try again. ' +
        'Your choice is back to what is stored: Disallow.',
    );
    await expectNotSaved(page, row, dan, before, 'AskMe');
    expect(await days.inputValue()).toBe('0');
    expect(await days.isDisabled(), 'Days applies to AskMe only').toBe(true);
    await page.close();
  });
});
