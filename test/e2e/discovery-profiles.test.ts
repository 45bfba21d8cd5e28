// Scheduled scans in the web UI (issue 35 §1), in a real browser against the real service, scanning loopback
// only: the form refuses a profile with every message beside its field (no name, no subnet; a subnet outside
// the allowed ranges names it); a profile made in the form lists its schedule and next run; "Run now" runs
// it through the scan service and the list shows the last run (live hosts, its session); "Skip next" moves
// the next run and says which time was skipped; the form opens again with what was saved. Photographed at
// 1366 and 375 px, light and dark; no console errors.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { assertClean, photograph, screenshot, startSignedIn, type UiEnv, type UiPage } from './helpers/browser.js';

let env: UiEnv;
let p: UiPage;

before(async () => {
  ({ env, p } = await startSignedIn(async (started) => {
    // Loopback scans must not ask the machine's resolver for names; the configuration is read again.
    await writeFile(join(started.t.dataDir, 'config.yaml'), 'discovery:\n  reverse_dns: false\n  snmp_timeout_ms: 300\n  snmp_retries: 0\n');
    assert.equal((await started.t.service.app.config.reload()).discovery.reverse_dns, false);
  }));
});

after(async () => {
  await p?.context.close();
  await env?.close();
});

/** The message shown beside a field of the dialog, found by the field's label. */
async function errorBeside(dialog: Locator, label: string): Promise<string> {
  const field = dialog.locator('.field', { has: dialog.page().getByText(label, { exact: true }) }).first();
  return (await field.locator('.field-error').innerText()).trim();
}

test('the profile form refuses with every message beside its field, then makes a schedule that lists its next run', async () => {
  const { page } = p;
  await page.goto('/discovery/profiles');
  await page.getByRole('heading', { name: 'Discovery', level: 1 }).waitFor();
  await page.getByText('No scheduled scans').waitFor();
  await page.getByRole('button', { name: 'New schedule' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New scheduled scan' });
  await dialog.waitFor();
  const subnetBox = dialog.getByLabel('Subnets', { exact: true });
  await subnetBox.fill('');
  // The probe's own subnet is offered first; take it away to get the refusal for none.
  for (let i = 0; i < 4 && await dialog.getByRole('button', { name: /^Remove / }).count(); i++) {
    await dialog.getByRole('button', { name: /^Remove / }).first().click();
  }
  await dialog.getByRole('button', { name: 'Create schedule' }).click();
  await dialog.locator('.field-error').nth(1).waitFor();
  assert.equal(await errorBeside(dialog, 'Name'), 'Required');
  assert.match(await errorBeside(dialog, 'Subnets'), /at least one subnet/i);
  assert.equal(await dialog.locator('.alert-error').count(), 0, 'no box above the form: every message is beside its field');
  await screenshot(page, 'discovery-profile-form-errors');

  // Outside the allowed ranges: the 403 names the subnet.
  await dialog.getByLabel('Name', { exact: true }).fill('Loopback watch');
  await subnetBox.fill('198.51.100.0/24');
  await subnetBox.press('Enter');
  await dialog.getByRole('button', { name: 'Create schedule' }).click();
  await dialog.getByText(/outside the ranges this probe scans/).first().waitFor();
  await dialog.getByRole('button', { name: 'Remove 198.51.100.0/24' }).click();
  await subnetBox.fill('127.0.0.0/29');
  await subnetBox.press('Enter');
  await dialog.getByLabel('Identify SNMP agents').uncheck();
  await dialog.getByLabel('Jitter (seconds)').fill('0');
  await dialog.getByRole('button', { name: 'Create schedule' }).click();
  await dialog.waitFor({ state: 'detached' });
  const row = page.getByRole('row', { name: /Loopback watch/ });
  await row.getByText('Every 15 minutes').waitFor();
  await row.getByText('Scheduled').waitFor();
  await row.getByText('Not run yet').waitFor();
  assert.match(await row.innerText(), /in 15 minutes/);
  assertClean(p, 'the refused and the made profile', ['POST /api/v1sion/profiles 400', 'POST /api/v1sion/profiles 403']);
});

test('run now shows the last run and its session; skip next moves the next run', async () => {
  const { page } = p;
  const row = page.getByRole('row', { name: /Loopback watch/ });
  const before = await row.locator('td').nth(2).innerText();
  await row.getByRole('button', { name: 'Run Loopback watch now' }).click();
  await row.getByText('Done').waitFor({ timeout: 60_000 });
  assert.match(await row.innerText(), /6 live/);
  assert.match(await row.innerText(), /\(run now\)/);
  assert.equal(await row.locator('td').nth(2).innerText(), before, 'run now leaves the schedule as it was');
  const session = await row.getByRole('link', { name: 'Session' }).getAttribute('href');
  assert.match(session ?? '', /^\/discovery\/sessions\/[0-9a-f-]{36}$/);

  await row.getByRole('button', { name: 'Skip the next run of Loopback watch' }).click();
  await row.getByText(/^Skipped /).waitFor();
  assert.match(await row.innerText(), /in 30 minutes/);

  // The form opens again with what was saved.
  await row.getByRole('button', { name: 'Edit Loopback watch' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Loopback watch' });
  assert.equal(await dialog.getByLabel('Every', { exact: true }).inputValue(), '15');
  assert.equal(await dialog.getByLabel('Identify SNMP agents').isChecked(), false);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await photograph(p, '/discovery/profiles', 'discovery-profiles', 'Discovery');
  assertClean(p, 'the schedules list');

  await page.goto(session!);
  await page.getByText('127.0.0.1').first().waitFor();
  assertClean(p, 'the schedule\'s session');
});
