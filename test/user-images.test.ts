/**
 * Profile images (docs/api.md "User management" "Get user image", "Update user image"; docs/decisions/0010-profile-images.md),
 * through the HTTP API. Every image is generated here with sharp.
 */
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { rowsOf } from '../src/platform/db/open.js';
import { call, demoImport, login, startAssent, type TestAssent } from './helpers/assent.js';
import { hasGps, noise, padPng, pngBomb, solid } from './helpers/images.js';

let t: TestAssent;
/** Access tokens by person. */
const tokens: Record<string, string> = {};
let aliceId: string;
let bobId: string;

const PEOPLE = {
  alice: ['alice@acme.example', 'alice-passphrase'],
  bob: ['bob@acme.example', 'bob-passphrase'],
  owner: ['owner@acme.example', 'owner-passphrase'],
  admin: ['admin@acme.example', 'admin-passphrase'],
  dpo: ['dpo@acme.example', 'dpo-passphrase'],
  developer: ['developer@acme.example', 'developer-passphrase'],
  otherOwner: ['owner@globex.example', 'globex-owner-passphrase'],
} as const;

beforeAll(async () => {
  t = await startAssent();
  // Acme gets one admin per role; Globex is another organisation whose staff must see nothing of Acme's users.
  const file = demoImport() as any;
  file.organisations[0].admins.push(
    { username: 'admin@acme.example', password: 'admin-passphrase', name: 'Admin', roles: ['admin'] },
    { username: 'dpo@acme.example', password: 'dpo-passphrase', name: 'Dpo', roles: ['dpo'] },
    { username: 'developer@acme.example', password: 'developer-passphrase', name: 'Developer', roles: ['developer'] },
  );
  file.organisations.push({
    key: 'globex',
    name: 'Globex',
    admins: [
      {
        username: 'owner@globex.example',
        password: 'globex-owner-passphrase',
        roles: ['owner', 'admin', 'dpo', 'developer'],
      },
    ],
  });
  await runImport(t.store.db, file, t.config.argon2, redirectUriImport);
  for (const [who, [username, password]] of Object.entries(PEOPLE))
    tokens[who] = (await login(t, username, password)).Token.access_token;
  aliceId = t.ids.organisations.acme!.users['alice@acme.example']!;
  bobId = t.ids.organisations.acme!.users['bob@acme.example']!;
});
afterAll(() => t?.stop());

// ---- HTTP helpers ---------------------------------------------------------------------------

async function upload(
  path: string,
  token: string | undefined,
  bytes: Buffer,
  opts: { field?: string; filename?: string; type?: string } = {},
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append(
    opts.field ?? 'userimage',
    new Blob([new Uint8Array(bytes)], { type: opts.type ?? 'image/jpeg' }),
    opts.filename ?? 'me.jpg',
  );
  const res = await fetch(`${t.base}${path}`, {
    method: 'POST',
    body: form,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function download(url: string, authorization: string | undefined, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { ...headers, ...(authorization ? { authorization } : {}) } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** POSTs `body` as is to the alias, as Alice. */
async function rawPost(contentType: string, body: Buffer): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.base}/user/image`, {
    method: 'POST',
    body: new Uint8Array(body),
    headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': contentType },
  });
  return { status: res.status, body: await res.json() };
}

const bearer = (who: keyof typeof PEOPLE) => `Bearer ${tokens[who]}`;

async function imageRows(userId: string): Promise<Array<{ id: string }>> {
  return rowsOf<{ id: string }>(
    await t.store.db.execute(sql`SELECT id::text AS id FROM user_images WHERE user_id = ${userId}`),
  );
}

/** A 4xx JSON error with a message. */
function expectError(res: { status: number; body: any }, status: number, message?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ Code: status, Message: expect.any(String) });
  if (message) expect(res.body.Message).toMatch(message);
}

// ---- tests ----------------------------------------------------------------------------------

describe('upload: POST {base}/users/{userID}/image, field userimage', () => {
  it('stores a JPEG and answers 200 {"User"} with ImageID and an absolute ImageURL', async () => {
    const res = await upload(`/users/${aliceId}/image`, tokens.alice, await noise(120, 80).jpeg().toBuffer());
    expect(res.status).toBe(200);
    const { ImageID, ImageURL, ID } = res.body.User;
    expect(ID).toBe(aliceId);
    expect(ImageID).toMatch(/^[0-9a-f-]{36}$/);
    expect(ImageURL).toBe(`${t.url}/v1/users/${aliceId}/image/${ImageID}`);
    // Every presentation of the User carries it: GET /user and the login answer.
    expect((await call(`${t.base}/user`, { token: tokens.alice })).body.User).toMatchObject({ ImageID, ImageURL });
    expect((await login(t, ...PEOPLE.alice)).User).toMatchObject({ ImageID, ImageURL });
  });

  it('strips GPS EXIF and every other metadata (camera EXIF, ICC, XMP): the download has none', async () => {
    const input = await noise(64, 48)
      .jpeg()
      .withExif({
        IFD0: { Make: 'Acme', Model: 'Spycam' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '59/1 19/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '18/1 4/1 0/1' },
      })
      .withIccProfile('p3')
      .withXmp(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ' +
          'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>',
      )
      .toBuffer();
    const before = await sharp(input).metadata();
    expect(hasGps(before.exif)).toBe(true);
    expect(before.icc && before.xmp).toBeTruthy();

    const res = await upload('/user/image', tokens.alice, input);
    expect(res.status).toBe(200);
    const got = await download(res.body.User.ImageURL, bearer('alice'));
    expect(got.status).toBe(200);
    const after = await sharp(got.bytes).metadata();
    expect(after.format).toBe('jpeg');
    expect(hasGps(after.exif)).toBe(false);
    expect({ exif: after.exif, icc: after.icc, xmp: after.xmp, iptc: after.iptc, comments: after.comments }).toEqual({
      exif: undefined,
      icc: undefined,
      xmp: undefined,
      iptc: undefined,
      comments: undefined,
    });
    expect(got.bytes.includes(Buffer.from('Spycam'))).toBe(false);
  });

  it('applies the EXIF orientation before the metadata is dropped (a 64×48 photo tagged "rotate 90°" is stored 48×64)', async () => {
    const input = await solid(64, 48).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const res = await upload('/user/image', tokens.alice, input);
    const after = await sharp((await download(res.body.User.ImageURL, bearer('alice'))).bytes).metadata();
    expect([after.width, after.height, after.orientation]).toEqual([48, 64, undefined]);
  });

  it('detects the format from the bytes: a PNG declared as image/jpeg (me.jpg) is accepted as PNG and stored as JPEG', async () => {
    const png = await solid(40, 30, 4).png().toBuffer();
    const res = await upload('/user/image', tokens.alice, png, { type: 'image/jpeg', filename: 'me.jpg' });
    expect(res.status).toBe(200);
    const after = await sharp((await download(res.body.User.ImageURL, bearer('alice'))).bytes).metadata();
    expect([after.format, after.width, after.height, after.hasAlpha]).toEqual(['jpeg', 40, 30, false]);
  });

  it('accepts WebP', async () => {
    const res = await upload('/user/image', tokens.alice, await solid(30, 20).webp().toBuffer(), {
      type: 'image/webp',
      filename: 'me.webp',
    });
    expect(res.status).toBe(200);
  });

  it('refuses GIF with a 415, even declared as image/jpeg', async () => {
    const res = await upload('/user/image', tokens.alice, await solid(8, 8).gif().toBuffer());
    expectError(res, 415, /GIF/);
  });

  it('refuses text and SVG with a 415', async () => {
    expectError(
      await upload('/user/image', tokens.alice, Buffer.from('hello, I am not an image\n')),
      415,
      /JPEG, PNG or WebP/,
    );
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    expectError(await upload('/user/image', tokens.alice, svg, { type: 'image/svg+xml', filename: 'me.svg' }), 415);
  });

  it('refuses a truncated file with a 400 (JPEG cut in its scan data, PNG cut in its IDAT, a JPEG cut in its header)', async () => {
    const jpeg = await noise(400, 300).jpeg().toBuffer();
    expectError(
      await upload('/user/image', tokens.alice, jpeg.subarray(0, Math.floor(jpeg.length * 0.6))),
      400,
      /truncated or damaged/,
    );
    const png = await noise(400, 300).png().toBuffer();
    expectError(
      await upload('/user/image', tokens.alice, png.subarray(0, Math.floor(png.length * 0.6))),
      400,
      /truncated or damaged/,
    );
    expectError(await upload('/user/image', tokens.alice, jpeg.subarray(0, 12)), 400, /header/);
  });

  it('refuses an empty file with a 400', async () => {
    expectError(await upload('/user/image', tokens.alice, Buffer.alloc(0)), 400, /empty/);
  });

  it('refuses a 20000×20000 PNG bomb from its header: 400, with bounded memory', async () => {
    const bomb = pngBomb(20000);
    expect(bomb.length).toBeLessThan(100_000); // 400 megapixels in under 100 KB
    const rssBefore = process.memoryUsage().rss;
    const res = await upload('/user/image', tokens.alice, bomb, { type: 'image/png', filename: 'bomb.png' });
    expectError(res, 400, /20000×20000 pixels; at most 4096×4096/);
    // Not timed: how long the refusal takes depends on the machine's load; the message (read from
    // the header) and the memory bound show that the image was not decoded.
    // Decoding it would need 400 MB at one byte a pixel; the refusal allocates nearly nothing.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
  });

  it('accepts at most 4096×4096 pixels: 4096×4096 is stored, 4097×16 is a 400', async () => {
    const ok = await upload('/user/image', tokens.alice, await solid(4096, 4096).png().toBuffer(), {
      type: 'image/png',
    });
    expect(ok.status).toBe(200);
    expectError(await upload('/user/image', tokens.alice, await solid(4097, 16).png().toBuffer()), 400, /4097×16/);
  });

  it('accepts at most 5 MiB: exactly 5 MiB is stored, one byte more is a 413 while streaming', async () => {
    const png = await solid(32, 32).png().toBuffer();
    const ok = await upload('/user/image', tokens.alice, padPng(png, 5 * 1024 * 1024), { type: 'image/png' });
    expect(ok.status).toBe(200);
    expectError(await upload('/user/image', tokens.alice, padPng(png, 5 * 1024 * 1024 + 1)), 413, /5 MiB/);
    expectError(await upload('/user/image', tokens.alice, Buffer.alloc(20 * 1024 * 1024, 0xff)), 413, /5 MiB/);
  });

  it('takes the image from the field userimage only: another field name is a 400', async () => {
    expectError(
      await upload('/user/image', tokens.alice, await solid(8, 8).jpeg().toBuffer(), { field: 'image' }),
      400,
      /userimage/,
    );
  });

  it('answers a form without a file, with two files, or malformed with a 400, and a body that is not multipart with a 415', async () => {
    const form = new FormData();
    form.append('name', 'x');
    const noFile = await fetch(`${t.base}/user/image`, {
      method: 'POST',
      body: form,
      headers: { authorization: bearer('alice') },
    });
    expectError({ status: noFile.status, body: await noFile.json() }, 400, /no file/);

    const jpeg = await solid(8, 8).jpeg().toBuffer();
    const two = new FormData();
    two.append('userimage', new Blob([jpeg]), 'a.jpg');
    two.append('userimage', new Blob([jpeg]), 'b.jpg');
    const twoFiles = await fetch(`${t.base}/user/image`, {
      method: 'POST',
      body: two,
      headers: { authorization: bearer('alice') },
    });
    expectError({ status: twoFiles.status, body: await twoFiles.json() }, 400, /one file/);

    const malformed = await rawPost(
      'multipart/form-data; boundary=XyZ',
      Buffer.from(
        '--XyZ\r\nContent-Disposition: form-data; name="userimage"; filename="a.jpg"\r\n\r\n\xff\xd8\xff',
        'latin1',
      ),
    );
    expectError(malformed, 400, /malformed/);
    expectError(await rawPost('multipart/form-data', Buffer.from('x')), 400, /malformed/);

    expectError(
      await call(`${t.base}/user/image`, { token: tokens.alice, body: { userimage: 'aGVsbG8=' } }),
      415,
      /multipart\/form-data/,
    );
    expectError(await rawPost('image/jpeg', await solid(8, 8).jpeg().toBuffer()), 415);
  });

  it('replaces the previous image: the old row is deleted and its URL answers 404; two simultaneous uploads leave one image', async () => {
    const first = await upload('/user/image', tokens.alice, await solid(10, 10).jpeg().toBuffer());
    const second = await upload(`/users/${aliceId}/image`, tokens.alice, await solid(12, 12).jpeg().toBuffer());
    expect(second.body.User.ImageID).not.toBe(first.body.User.ImageID);
    expect((await download(first.body.User.ImageURL, bearer('alice'))).status).toBe(404);
    expect(await imageRows(aliceId)).toEqual([{ id: second.body.User.ImageID }]);

    const both = await Promise.all(
      [1, 2].map(async (n) =>
        upload(
          '/user/image',
          tokens.alice,
          await solid(10 + n, 10)
            .jpeg()
            .toBuffer(),
        ),
      ),
    );
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const current = (await call(`${t.base}/user`, { token: tokens.alice })).body.User.ImageID;
    expect(await imageRows(aliceId)).toEqual([{ id: current }]);
  });

  it('lets only the user themself upload: staff who may view the user get 403, anyone else and unknown users 404, no credential 401', async () => {
    const jpeg = await solid(8, 8).jpeg().toBuffer();
    expectError(await upload(`/users/${aliceId}/image`, tokens.owner, jpeg), 403);
    expectError(await upload(`/users/${aliceId}/image`, tokens.dpo, jpeg), 403);
    expectError(await upload(`/users/${aliceId}/image`, tokens.bob, jpeg), 404);
    expectError(await upload(`/users/${aliceId}/image`, tokens.otherOwner, jpeg), 404);
    expectError(await upload('/users/0190e0a0-0000-7000-8000-000000000000/image', tokens.alice, jpeg), 404);
    expectError(await upload('/users/not-an-id/image', tokens.alice, jpeg), 404);
    expectError(await upload(`/users/${aliceId}/image`, undefined, jpeg), 401);
    expectError(await upload('/user/image', undefined, jpeg), 401);
  });
});

describe('download: GET {base}/users/{userID}/image/{imageID}', () => {
  let url: string;
  beforeAll(async () => {
    url = (await upload('/user/image', tokens.alice, await noise(50, 40).jpeg().toBuffer())).body.User.ImageURL;
  });

  it('answers image/jpeg with a strong ETag and Cache-Control: private', async () => {
    const got = await download(url, bearer('alice'));
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
    expect(got.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(got.headers.get('cache-control')).toMatch(/^private\b/);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await sharp(got.bytes).metadata()).format).toBe('jpeg');
    const head = await fetch(url, { method: 'HEAD', headers: { authorization: bearer('alice') } });
    expect([head.status, head.headers.get('etag')]).toEqual([200, got.headers.get('etag')]);
  });

  it('answers 304 without a body on a matching If-None-Match (also weak or in a list), 200 on another', async () => {
    const etag = (await download(url, bearer('alice'))).headers.get('etag')!;
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const got = await download(url, bearer('alice'), { 'if-none-match': header });
      expect([header, got.status, got.bytes.length, got.headers.get('etag')]).toEqual([header, 304, 0, etag]);
      expect(got.headers.get('cache-control')).toMatch(/^private\b/);
    }
    expect((await download(url, bearer('alice'), { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('lets the user (token or API key) and the Owner, Admin and Dpo of an organisation the user is subscribed to download it', async () => {
    for (const who of ['alice', 'owner', 'admin', 'dpo'] as const)
      expect([who, (await download(url, bearer(who))).status]).toEqual([who, 200]);
    const apiKey = (await call(`${t.base}/user`, { token: tokens.alice })).body.User.APIKey;
    expect((await download(url, `ApiKey ${apiKey}`)).status).toBe(200);
  });

  it('answers 404 to anyone else: another individual of the organisation, its Developer, staff of another organisation', async () => {
    for (const who of ['bob', 'developer', 'otherOwner'] as const) {
      const got = await download(url, bearer(who));
      expect([who, got.status]).toEqual([who, 404]);
      expect(JSON.parse(got.bytes.toString())).toEqual({ Code: 404, Message: 'Image not found' });
    }
    expect((await download(url, undefined)).status).toBe(401);
  });

  it('answers 404 for an unknown image, a malformed ID, or the image asked under another user', async () => {
    const imageId = url.split('/').pop()!;
    for (const path of [
      `/users/${aliceId}/image/0190e0a0-0000-7000-8000-000000000000`,
      `/users/${aliceId}/image/nope`,
      `/users/${bobId}/image/${imageId}`,
    ]) {
      expect([path, (await download(`${t.base}${path}`, bearer('owner'))).status]).toEqual([path, 404]);
    }
  });
});

describe('removal: DELETE {base}/users/{userID}/image', () => {
  it('lets only the user themself remove it: Owner 403, another individual 404', async () => {
    expectError(await call(`${t.base}/users/${aliceId}/image`, { method: 'DELETE', token: tokens.owner }), 403);
    expectError(await call(`${t.base}/users/${aliceId}/image`, { method: 'DELETE', token: tokens.bob }), 404);
    expect((await call(`${t.base}/user`, { token: tokens.alice })).body.User.ImageID).not.toBe('');
  });

  it('removes the image: 204, ImageID and ImageURL cleared, the row deleted, its URL 404; again is still 204', async () => {
    const url = (await call(`${t.base}/user`, { token: tokens.alice })).body.User.ImageURL;
    expect((await call(`${t.base}/users/${aliceId}/image`, { method: 'DELETE', token: tokens.alice })).status).toBe(
      204,
    );
    expect((await call(`${t.base}/user`, { token: tokens.alice })).body.User).toMatchObject({
      ImageID: '',
      ImageURL: '',
    });
    expect(await imageRows(aliceId)).toEqual([]);
    expect((await download(url, bearer('alice'))).status).toBe(404);
    expect((await call(`${t.base}/users/${aliceId}/image`, { method: 'DELETE', token: tokens.alice })).status).toBe(
      204,
    );
  });
});

describe('the OpenAPI document', () => {
  it('describes the three image paths and the alias, with multipart upload and a JPEG download', async () => {
    const doc = (await call(`${t.url}/openapi.json`)).body;
    const paths = doc.paths as Record<string, any>;
    expect(Object.keys(paths['/v1/users/{userID}/image'])).toEqual(expect.arrayContaining(['post', 'delete']));
    expect(paths['/v1/user/image'].post).toBeTruthy();
    expect(paths['/v1/users/{userID}/image/{imageID}'].get.responses['200'].content).toHaveProperty(['image/jpeg']);
    expect(JSON.stringify(paths['/v1/users/{userID}/image'].post)).toContain('userimage');
  });
});
