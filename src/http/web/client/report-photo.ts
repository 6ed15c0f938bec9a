/*
 * The report form's photo (data-report-photo): when the reader chooses a picture, reads the QR
 * code in it (the seat's travel code) with jsQR, as the server does again when the form is
 * sent, shows the text it read, and fills the train and unit fields the text names when they
 * are empty. The form is complete without this: the photo is posted and read on the server.
 */
import * as jsqr from 'jsqr';

type DecodeQr = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
// jsqr is CommonJS whose types declare only a default export (see report-photo.ts on the server).
const jsqrExports = jsqr as unknown as {
  default?: DecodeQr | { default?: DecodeQr };
  jsQR?: DecodeQr;
};
const jsQR: DecodeQr =
  jsqrExports.jsQR ??
  (typeof jsqrExports.default === 'function' ? jsqrExports.default : jsqrExports.default!.default!);

/** The side the picture is searched at: the server's too (a phone photo is 4000 px or more). */
const QR_SIDE = 1024;

/** A train number or a unit's code in the text a QR code holds, if it names one. */
export function codesIn(text: string): { train?: string; emu?: string } {
  const emu = /\b(C[RH][A-Z0-9]*(?:-[A-Z])?-\d{4})\b/i.exec(text)?.[1];
  const rest = emu ? text.replace(emu, ' ') : text;
  const train = /(?:^|[^A-Z0-9])([GDC]\d{1,4})(?![0-9])/i.exec(rest)?.[1];
  return {
    ...(train ? { train: train.toUpperCase() } : {}),
    ...(emu ? { emu: emu.toUpperCase() } : {}),
  };
}

async function readQr(file: Blob): Promise<string | null> {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, QR_SIDE / Math.max(bitmap.width, bitmap.height));
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) return null;
  context.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  const pixels = context.getImageData(0, 0, width, height);
  return jsQR(pixels.data, width, height)?.data ?? null;
}

function enableReportPhoto(doc: Document): void {
  const form = doc.querySelector<HTMLFormElement>('form[data-report-photo]');
  const input = form?.querySelector<HTMLInputElement>('input[type="file"][name="photo"]');
  const output = form?.querySelector<HTMLOutputElement>('output[data-qr-output]');
  if (!form || !input || !output) return;
  const fill = (name: string, value: string | undefined) => {
    const field = form.querySelector<HTMLInputElement>(`input[name="${name}"]`);
    if (field && value && field.value.trim() === '') field.value = value;
  };
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    output.textContent = '';
    if (!file) return;
    readQr(file).then(
      (text) => {
        if (text === null) {
          output.textContent = output.dataset.none ?? '';
          return;
        }
        output.textContent = `${output.dataset.read ?? ''} ${text}`;
        const codes = codesIn(text);
        fill('trainCode', codes.train);
        fill('emuCode', codes.emu);
      },
      () => {
        output.textContent = output.dataset.unreadable ?? '';
      },
    );
  });
}

enableReportPhoto(document);
