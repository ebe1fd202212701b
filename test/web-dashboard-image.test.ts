/**
 * The profile image on the dashboard's "My data" page over HTTP (docs/web.md "Privacy dashboard";
 * docs/decisions/0010-profile-images.md): uploaded and replaced through the API's image service as a
 * multipart form carrying the CSRF token, shown from a route that serves the session's own image, and
 * refused files shown as a message with the API's 4xx, changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { padPng, solid } from './helpers/images.js';
import { type WebClient, webSignIn } from './helpers/web-client.js';

const ALICE = { username: 'alice@acme.example', password: 'alice-passphrase' };
const BOB = { username: 'bob@acme.example', password: 'bob-passphrase' };
const IMAGE_PAGE = '/dashboard/data/image';

let t: TestAssent;
let alice: WebClient;
let png: Buffer;
beforeAll(async () => {
  t = await startAssent();
  alice = await webSignIn(t, ALICE);
  png = await solid(64, 48).png().toBuffer();
});
afterAll(() => t?.stop());

/** Alice's `ImageID` as the JSON API's User record shows it ("" or absent when none). */
async function imageIdOf(user = ALICE): Promise<string | undefined> {
  const session = await login(t, user.username, user.password);
  const res = await call(`${t.base}/user`, { token: session.Token.access_token });
  expect(res.status).toBe(200);
  return res.body.User.ImageID || undefined;
}

/** Posts the upload form: the CSRF field first (as the page's form orders it), then the file. */
async function upload(client: WebClient, bytes: Buffer, type = 'image/png', csrf?: string) {
  return client.postMultipart(IMAGE_PAGE, [
    ['_csrf', csrf ?? (await client.csrf())],
    ['userimage', new Blob([new Uint8Array(bytes)], { type }), 'me.png'],
  ]);
}

describe('dashboard profile image', { timeout: 60_000 }, () => {
  it('"My data" offers the upload as a multipart form with the CSRF field before the file', async () => {
    const html = await (await alice.get('/dashboard/data')).text();
    expect(html).toContain('No profile image yet.');
    expect(html).toMatch(
      /<form method="post" action="\/dashboard\/data\/image" enctype="multipart\/form-data"><input type="hidden" name="_csrf" value="[^"]+"\/?>.*<input id="userimage" name="userimage" type="file"/s,
    );
    expect((await alice.get(IMAGE_PAGE)).status).toBe(404);
  });

  it('an upload stores the image through the API’s service; the page shows it from the session’s own route', async () => {
    const res = await upload(alice, png);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/data?done=image');
    const imageId = await imageIdOf();
    expect(imageId).toBeTruthy();
    const html = await (await alice.get('/dashboard/data?done=image')).text();
    expect(html).toContain('Profile image saved.');
    expect(html).toContain(`<img src="/dashboard/data/image?v=${imageId}"`);
    expect(html).toContain('Replace image');
    const image = await alice.get(IMAGE_PAGE);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(bytes.subarray(0, 2).toString('hex')).toBe('ffd8'); // re-encoded as JPEG, as the API stores it
  });

  it('a replacement gets a new image ID, and the route serves the new image', async () => {
    const before = await imageIdOf();
    const etag = (await alice.get(IMAGE_PAGE)).headers.get('etag');
    const res = await upload(alice, await solid(32, 32, 4).webp().toBuffer(), 'image/webp');
    expect(res.status).toBe(303);
    const after = await imageIdOf();
    expect(after).not.toBe(before);
    expect((await alice.get(IMAGE_PAGE)).headers.get('etag')).not.toBe(etag);
  });

  const refusals: Array<[string, () => Buffer, number, RegExp]> = [
    ['larger than 5 MiB', () => padPng(png, 5 * 1024 * 1024 + 1), 413, /larger than 5 MiB/],
    ['not an image', () => Buffer.from('just some text, not an image at all'), 415, /JPEG, PNG or WebP/],
  ];
  it.each(refusals)(
    'a file %s is a message on the page with the API’s 4xx, and nothing changes',
    async (_n, bytes, status, message) => {
      const before = await imageIdOf();
      const res = await upload(alice, bytes());
      expect(res.status).toBe(status);
      const html = await res.text();
      expect(html).toMatch(/<p class="error" role="alert">/);
      expect(html).toMatch(message);
      expect(await imageIdOf()).toBe(before);
    },
  );

  it('Threat: CSRF — an upload without the session’s token, with a wrong one, with it after the file, or from another origin is refused, changing nothing', async () => {
    const before = await imageIdOf();
    const file: [string, Blob, string] = [
      'userimage',
      new Blob([new Uint8Array(png)], { type: 'image/png' }),
      'me.png',
    ];
    const token = await alice.csrf();
    const attempts = [
      alice.postMultipart(IMAGE_PAGE, [file]),
      alice.postMultipart(IMAGE_PAGE, [['_csrf', 'not-the-token'], file]),
      alice.postMultipart(IMAGE_PAGE, [file, ['_csrf', token]]),
      alice.postMultipart(IMAGE_PAGE, [['_csrf', token], file], { origin: 'https://evil.example' }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(403);
    expect(await imageIdOf()).toBe(before);
  });

  it('the htmx header carries the token as well', async () => {
    const before = await imageIdOf();
    const res = await alice.postMultipart(
      IMAGE_PAGE,
      [['userimage', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'a.png']],
      {
        headers: { 'x-csrf-token': await alice.csrf() },
      },
    );
    expect(res.status).toBe(303);
    expect(await imageIdOf()).not.toBe(before);
  });

  it('the image route serves only the session’s own image, and nothing without a session', async () => {
    const bob = await webSignIn(t, BOB);
    expect((await bob.get(IMAGE_PAGE)).status).toBe(404);
    const signedOut = await fetch(`${t.url}${IMAGE_PAGE}`, { redirect: 'manual' });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toMatch(/^\/dashboard\/sign-in\?next=/);
  });
});
