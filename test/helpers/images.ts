/** Images made for the profile-image tests (test/user-images.test.ts), with sharp or by hand. */
import zlib from 'node:zlib';
import sharp from 'sharp';

/** A plain image of one colour (half-transparent when it has 4 channels). */
export const solid = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background: { r: 30, g: 120, b: 200, alpha: 0.5 } } });

/** Pseudo-random pixels, so that a JPEG's scan data is long enough to cut in the middle. */
export function noise(width: number, height: number) {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (Math.imul(i, 2654435761) >>> 24) & 255;
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

/** A PNG chunk with its CRC (PNG spec §5.3). */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 1-bit greyscale PNG of `side`×`side` zero pixels: some 50 KB declaring 400 megapixels at 20000. */
export function pngBomb(side: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 1; // bit depth 1, colour type 0 (greyscale), deflate, no filter, no interlace
  const rows = Buffer.alloc((1 + Math.ceil(side / 8)) * side); // filter byte + packed pixels, all zero
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Pads a PNG to exactly `size` bytes with a private ancillary chunk before IEND. */
export function padPng(png: Buffer, size: number): Buffer {
  const iend = png.length - 12;
  const pad = pngChunk('prVt', Buffer.alloc(size - png.length - 12, 0x61));
  return Buffer.concat([png.subarray(0, iend), pad, png.subarray(iend)]);
}

/** Whether an EXIF block (as sharp's metadata gives it) has a GPS IFD with at least one entry. */
export function hasGps(exif: Buffer | undefined): boolean {
  if (!exif) return false;
  const tiff = exif.subarray(exif.toString('latin1', 0, 4) === 'Exif' ? 6 : 0);
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const ifd0 = u32(4);
  for (let i = 0; i < u16(ifd0); i++) {
    const entry = ifd0 + 2 + i * 12;
    if (u16(entry) === 0x8825) return u16(u32(entry + 8)) > 0; // GPSInfo pointer, then its entry count
  }
  return false;
}
