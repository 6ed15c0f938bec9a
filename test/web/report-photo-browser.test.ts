import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  axeViolationsWithoutScripts,
  scrollsSideways,
  useWebBrowserTest,
} from './helpers/web-harness.js';
import { signInBrowser, webSession, type WebSession } from './helpers/web-sessions.js';

const web = useWebBrowserTest();
let reader: WebSession;
let moderator: WebSession;
let dir: string;
/** A PNG of a QR code naming a unit (as a seat's travel code might), and its text. */
const QR_TEXT = 'https://travel.example/t?train=G1&unit=CR400AF-2003&seat=05F';
let qrPng: string;

beforeAll(async () => {
  reader = await webSession(web.t.current.db, 'photographer');
  moderator = await webSession(web.t.current.db, 'checker', 'moderator');
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-report-photo-'));
  qrPng = path.join(dir, 'ticket.png');
  await writeFile(qrPng, await QRCode.toBuffer(QR_TEXT, { width: 400, margin: 4 }));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const reportsOf = async (emu: string) =>
  (
    await web.t.current.db.query<{ id: number; photo: boolean; qr_text: string | null }>(
      `SELECT s.id, p.report_id IS NOT NULL AS photo, s.qr_text FROM sighting_reports s
         LEFT JOIN report_photos p ON p.report_id = s.id WHERE s.emu_code = $1`,
      [emu],
    )
  ).rows;

describe('a report’s photo in a phone browser', () => {
  it('reads the QR code of the chosen photo in the page, fills the unit, and the server reads it again', async () => {
    await web.onPhone({ locale: 'en-US' }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, reader);
      await page.goto(`${base}/report?train=G1`);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel(/^Photo of the unit number/).setInputFiles(qrPng);
      const output = page.locator('output[data-qr-output]');
      await expect.poll(() => output.innerText()).toContain(QR_TEXT);
      expect(await page.locator('input[name="emuCode"]').inputValue()).toBe('CR400AF-2003');
      expect(await scrollsSideways(page)).toBe(false);
      expect(await axeViolations(page)).toEqual([]);
      await Promise.all([
        page.waitForURL(`${base}/report`),
        page.getByRole('button', { name: 'Send the report' }).click(),
      ]);
      expect(await page.locator('h1').innerText()).toBe('Thank you');
      expect(await page.locator('[data-qr-server] code').innerText()).toBe(QR_TEXT);
      expect(await axeViolations(page)).toEqual([]);
    });
    expect(await reportsOf('CR400AF-2003')).toEqual([
      { id: expect.anything(), photo: true, qr_text: QR_TEXT },
    ]);
  }, 60_000);

  it('posts the photo with JavaScript off, read on the server', async () => {
    await web.onPhone({ locale: 'zh-CN', javaScript: false }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, reader);
      await page.goto(`${base}/report?train=G1`);
      await page.locator('input[name="emuCode"]').pressSequentially('CR400AF-2002');
      await page.locator('input[name="photo"]').setInputFiles(qrPng);
      await Promise.all([
        page.waitForURL(`${base}/report`),
        page.locator('form.report-form button[type="submit"]').click(),
      ]);
      expect(await page.locator('h1').innerText()).toBe('谢谢');
      expect(await page.locator('[data-qr-server] code').innerText()).toBe(QR_TEXT);
      expect(await scrollsSideways(page)).toBe(false);
      expect(await axeViolationsWithoutScripts(page)).toEqual([]);
    });
    expect(await reportsOf('CR400AF-2002')).toEqual([
      { id: expect.anything(), photo: true, qr_text: QR_TEXT },
    ]);
  }, 60_000);

  it('shows a moderator the photo from the queue, as the JPEG the server made', async () => {
    await web.onPhone({ locale: 'en-US' }, async (page, context) => {
      const { base } = web.server;
      await signInBrowser(context, base, moderator);
      await page.goto(`${base}/admin/reports`);
      const row = page.locator('tr', { hasText: 'CR400AF-2002' });
      expect(await row.innerText()).toContain(QR_TEXT);
      const link = row.getByRole('link', { name: 'Photo' });
      const [answer] = await Promise.all([page.waitForNavigation(), link.click()]);
      expect(answer?.status()).toBe(200);
      const headers = answer!.headers();
      expect(headers['content-type']).toBe('image/jpeg');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['content-disposition']).toMatch(/^inline; filename="report-\d+\.jpg"$/);
      expect(headers['cache-control']).toBe('private, no-store');
      const meta = await sharp(await answer!.body()).metadata();
      expect(meta.format).toBe('jpeg');
    });
  }, 60_000);
});

/** The report form's CSRF cookie and token, as a signed-in reader's browser gets them. */
async function formToken(session: WebSession) {
  const res = await web.server.app.inject({
    url: '/report?train=G1',
    headers: { accept: 'text/html' },
    cookies: { token: session.secret },
  });
  const csrf = res.cookies.find((c) => c.name === 'csrf')!.value;
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body)![1]!;
  return { cookies: { token: session.secret, csrf }, token };
}

/** A multipart body as a browser sends the form: the text fields, then the photo. */
function multipart(fields: Record<string, string>, photo: { name: string; bytes: Buffer }) {
  const boundary = '----emutrack' + Math.random().toString(36).slice(2);
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
    );
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="${photo.name}"\r\n` +
        `Content-Type: image/png\r\n\r\n`,
    ),
    photo.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return {
    payload: Buffer.concat(parts),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

async function postReport(emu: string, photo: { name: string; bytes: Buffer }) {
  const { cookies, token } = await formToken(reader);
  const body = multipart(
    { _csrf: token, trainCode: 'G1', emuCode: emu, date: '20260816', observedAt: '' },
    photo,
  );
  return web.server.app.inject({
    method: 'POST',
    url: '/report',
    headers: { 'content-type': body.contentType, accept: 'text/html' },
    payload: body.payload,
    cookies,
  });
}

describe('a report’s photo refused', () => {
  it('refuses an HTML page named .png with 400 naming the field, keeping nothing', async () => {
    const html = Buffer.from('<!doctype html><html><script>alert(1)</script></html>');
    const res = await postReport('CR400AF-2001', { name: 'photo.png', bytes: html });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('photo: not a JPEG, PNG or WebP image');
    expect(res.body).not.toContain('<script>alert(1)');
    expect(await reportsOf('CR400AF-2001')).toEqual([]);
  });

  it('refuses a 50 MB upload with 413 naming the field, from its length, before reading it', async () => {
    const res = await postReport('CR400AF-2001', {
      name: 'huge.png',
      bytes: Buffer.alloc(50 * 1024 * 1024, 0x89),
    });
    expect(res.statusCode).toBe(413);
    expect(res.body).toContain('photo: larger than 5242880 bytes');
    expect(res.headers.connection).toBe('close');
    expect(await reportsOf('CR400AF-2001')).toEqual([]);
  });

  it('refuses an oversized photo sent without a length as soon as it passes the limit', async () => {
    const { cookies, token } = await formToken(reader);
    const body = multipart(
      { _csrf: token, trainCode: 'G1', emuCode: 'CR400AF-2001', date: '20260816' },
      { name: 'big.png', bytes: Buffer.alloc(6 * 1024 * 1024, 0x89) },
    );
    const url = new URL('/report', web.server.base);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        headers: {
          'content-type': body.contentType,
          'transfer-encoding': 'chunked',
          accept: 'text/html',
          cookie: `token=${cookies.token}; csrf=${cookies.csrf}`,
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      // The server may close the connection before all of it is sent: that is the point.
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
      });
      for (let i = 0; i < body.payload.length; i += 64 * 1024)
        req.write(body.payload.subarray(i, i + 64 * 1024));
      req.end();
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toContain('photo: larger than 5242880 bytes');
    expect(await reportsOf('CR400AF-2001')).toEqual([]);
  });

  it('answers a malformed multipart body with a 400, never a 500', async () => {
    const { cookies } = await formToken(reader);
    for (const contentType of ['multipart/form-data', 'multipart/form-data; boundary=x']) {
      const res = await web.server.app.inject({
        method: 'POST',
        url: '/report',
        headers: { 'content-type': contentType, accept: 'text/html' },
        payload: '--y\r\nContent-Disposition: form-data\r\n\r\nzz',
        cookies,
      });
      expect(res.statusCode, contentType).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, contentType).toBeLessThan(500);
    }
  });

  it('keeps the kept JPEG free of the EXIF a phone writes (its location)', async () => {
    const jpeg = await sharp(await QRCode.toBuffer(QR_TEXT, { width: 300 }))
      .jpeg()
      .withExif({ IFD0: { Make: 'PhoneCo', Copyright: 'GPS 31.2,121.4' } })
      .toBuffer();
    const res = await postReport('CR400AF-2001', { name: 'photo.jpg', bytes: jpeg });
    expect(res.statusCode).toBe(200);
    const [kept] = await reportsOf('CR400AF-2001');
    const stored = await web.t.current.db.query<{ jpeg: Buffer }>(
      'SELECT jpeg FROM report_photos WHERE report_id = $1',
      [kept!.id],
    );
    const bytes = stored.rows[0]!.jpeg;
    expect((await sharp(bytes).metadata()).exif).toBeUndefined();
    expect(bytes.includes(Buffer.from('PhoneCo'))).toBe(false);
  });

  it('shows the photo to moderators only', async () => {
    const [kept] = await reportsOf('CR400AF-2002');
    const url = `/admin/reports/${kept!.id}/photo`;
    const as = (session?: WebSession) =>
      web.server.app.inject({ url, cookies: session ? { token: session.secret } : {} });
    const denied = await as(reader);
    expect(denied.statusCode).toBe(403);
    expect(denied.headers['content-type']).toContain('text/html');
    expect((await as()).statusCode).toBe(303);
    const shown = await as(moderator);
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['content-type']).toBe('image/jpeg');
    expect((await as(moderator)).rawPayload.subarray(0, 3)).toEqual(
      Buffer.from([0xff, 0xd8, 0xff]),
    );
    const none = await web.server.app.inject({
      url: '/admin/reports/999999/photo',
      cookies: { token: moderator.secret },
    });
    expect(none.statusCode).toBe(404);
    const bad = await web.server.app.inject({
      url: '/admin/reports/x1/photo',
      cookies: { token: moderator.secret },
    });
    expect(bad.statusCode).toBe(404);
  });
});
