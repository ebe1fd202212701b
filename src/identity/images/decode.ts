/**
 * Profile-image decoding (docs/decisions/0010-profile-images.md "Profile images"): the format is sniffed from the
 * bytes, the dimensions are read from the header before any decoder runs, and only then is the image decoded by
 * sharp and re-encoded as a baseline JPEG without any metadata.
 *
 * Everything here treats its input as hostile (ASVS 5.0 V5.2.1 size limits, V5.2.2 content
 * checked against the expected type, V5.4.x files handed to users).
 */
import type { Metadata, OutputInfo } from 'sharp';
import { AssentError, InvalidRequest, UnsupportedMediaType } from '../../platform/core/errors.js';

/**
 * sharp and libvips, loaded with the first image, not at start-up: a process that decodes no image (the CLI) need not
 * load the native library.
 */
let sharpLib: Promise<typeof import('sharp')> | undefined;
function loadSharp(): Promise<typeof import('sharp')> {
  sharpLib ??= import('sharp').then((lib) => {
    // Threat: caching decoded attacker images in libvips' operation cache keeps them in memory for nothing.
    lib.default.cache(false);
    return lib;
  });
  return sharpLib;
}

/** The input formats accepted, as sniffed from their first bytes. */
export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** Largest accepted upload: 5 MiB, in bytes (docs/decisions/0010-profile-images.md "Limits"). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Largest accepted width and height, in pixels (docs/decisions/0010-profile-images.md "Limits"). */
export const MAX_IMAGE_SIDE = 4096;
/** Largest accepted pixel count (4096 × 4096): sharp's `limitInputPixels`, the second guard. */
export const MAX_IMAGE_PIXELS = MAX_IMAGE_SIDE * MAX_IMAGE_SIDE;
/** Quality of the stored JPEG (1–100). */
const JPEG_QUALITY = 85;
/** Decodes running at once; further uploads wait for a slot. */
const MAX_PARALLEL_DECODES = 2;
/** Longest a single decode and re-encode may run, in seconds. */
const DECODE_TIMEOUT_SECONDS = 15;

/** Pixel dimensions read from an image header. */
export interface Dimensions {
  /** pixels */
  width: number;
  /** pixels */
  height: number;
}

/** A re-encoded image, ready to store. */
export interface Reencoded {
  /** JPEG bytes, without EXIF, GPS, ICC, XMP, IPTC or comments. */
  data: Buffer;
  /** pixels, after the EXIF orientation was applied */
  width: number;
  /** pixels, after the EXIF orientation was applied */
  height: number;
  /** What the upload was, by its bytes. */
  sourceFormat: ImageFormat;
}

/** The bytes are not an image of an accepted format (`ASSENT_ERR_UNSUPPORTED_MEDIA_TYPE`, 415). */
export class UnsupportedImage extends UnsupportedMediaType {}

const ACCEPTED = 'send a JPEG, PNG or WebP image';

/**
 * The format of `bytes` by its signature; the declared Content-Type and file name are never
 * consulted (docs/decisions/0010-profile-images.md: "detected from the bytes").
 * @param bytes - the uploaded file.
 * @returns the format, or null when the bytes are none of JPEG, PNG and WebP.
 */
export function sniffFormat(bytes: Buffer): ImageFormat | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    return 'webp';
  return null;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** PNG: the IHDR chunk must come first (PNG spec §5.6); width and height are big-endian. */
function pngDimensions(b: Buffer): Dimensions | null {
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** JPEG: walks the marker segments up to the first start-of-frame (ITU T.81 §B.2). */
function jpegDimensions(b: Buffer): Dimensions | null {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image or scan data before any frame
    const length = b.readUInt16BE(i + 2);
    if (length < 2) return null;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return i + 9 <= b.length ? { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) } : null;
    i += 2 + length;
  }
  return null;
}

/** WebP: the first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended) (RFC 9649 §2.5–2.7). */
function webpDimensions(b: Buffer): Dimensions | null {
  if (b.length < 30) return null;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return null;
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  return null;
}

/**
 * The dimensions an image header declares, read without decoding anything.
 * @param bytes - the uploaded file.
 * @param format - its sniffed format.
 * @returns width and height in pixels, or null when the header is missing or cut short.
 */
export function headerDimensions(bytes: Buffer, format: ImageFormat): Dimensions | null {
  if (format === 'png') return pngDimensions(bytes);
  if (format === 'jpeg') return jpegDimensions(bytes);
  return webpDimensions(bytes);
}

/**
 * Checks dimensions against the limits of docs/decisions/0010-profile-images.md.
 * @throws {InvalidRequest} when a side is 0 or larger than 4096 pixels.
 */
function assertWithinLimits(d: Dimensions): void {
  if (d.width < 1 || d.height < 1) throw new InvalidRequest('The image header declares no pixels: the file is damaged');
  if (d.width > MAX_IMAGE_SIDE || d.height > MAX_IMAGE_SIDE) {
    throw new InvalidRequest(
      `The image is ${d.width}×${d.height} pixels; at most ${MAX_IMAGE_SIDE}×${MAX_IMAGE_SIDE} is accepted`,
    );
  }
}

let activeDecodes = 0;
const waitingDecodes: Array<() => void> = [];

/** Runs `work` when one of the `MAX_PARALLEL_DECODES` slots is free. */
async function inDecodeSlot<T>(work: () => Promise<T>): Promise<T> {
  // Threat: many parallel uploads each holding a decoded 64 MiB bitmap exhaust memory.
  if (activeDecodes >= MAX_PARALLEL_DECODES) await new Promise<void>((resolve) => waitingDecodes.push(resolve));
  else activeDecodes += 1;
  try {
    return await work();
  } finally {
    const next = waitingDecodes.shift();
    if (next)
      next(); // the slot passes on to the next waiter
    else activeDecodes -= 1;
  }
}

/**
 * Validates and re-encodes an uploaded profile image: sniffs the format, checks the header's
 * dimensions (a decompression bomb is refused here, before any pixel is decoded), decodes with
 * sharp under `limitInputPixels` and `failOn: 'warning'`, applies the EXIF orientation, flattens
 * transparency onto white, converts to sRGB and writes a JPEG with no metadata at all.
 *
 * @param bytes - the uploaded file, at most `MAX_IMAGE_BYTES` (the caller enforces it while streaming).
 * @throws {UnsupportedImage} (415) when the bytes are not JPEG, PNG or WebP.
 * @throws {InvalidRequest} (400) when the file is empty, its header is cut short or inconsistent,
 *   it is larger than 4096×4096 pixels, or it cannot be decoded (truncated or damaged data).
 */
export async function reencodeImage(bytes: Buffer): Promise<Reencoded> {
  if (bytes.length === 0) throw new InvalidRequest('The file is empty');
  const format = sniffFormat(bytes);
  if (!format) {
    const what = bytes.toString('latin1', 0, 4).startsWith('GIF8')
      ? 'GIF images are not accepted'
      : 'The file is not an image of an accepted format';
    throw new UnsupportedImage(`${what}: ${ACCEPTED}`);
  }
  const declared = headerDimensions(bytes, format);
  if (!declared) throw new InvalidRequest(`The ${format.toUpperCase()} header is damaged or cut short`);
  // Threat: a decompression bomb (a small file declaring a huge bitmap) is refused before decoding.
  assertWithinLimits(declared);
  return inDecodeSlot(async () => {
    const { default: sharp } = await loadSharp();
    let output: { data: Buffer; info: OutputInfo };
    try {
      // Second guard: libvips refuses more pixels than the limit even if our header reading were fooled.
      const image = sharp(bytes, {
        limitInputPixels: MAX_IMAGE_PIXELS,
        failOn: 'warning',
        sequentialRead: true,
        pages: 1,
        autoOrient: true,
      });
      const meta: Metadata = await image.metadata();
      // Threat: a polyglot file sniffed as one format but decoded as another, or two frames of different sizes.
      if (meta.format !== format || meta.width !== declared.width || meta.height !== declared.height) {
        throw new InvalidRequest('The image header is inconsistent: the file is damaged');
      }
      // Threat: EXIF (GPS, camera serial), ICC, XMP and comments leak personal data; none is written (sharp's default).
      output = await image
        .flatten({ background: '#ffffff' })
        .toColourspace('srgb')
        .jpeg({ quality: JPEG_QUALITY })
        // Threat: a pathological image pinning a CPU for long.
        .timeout({ seconds: DECODE_TIMEOUT_SECONDS })
        .toBuffer({ resolveWithObject: true });
    } catch (err) {
      if (err instanceof AssentError) throw err;
      // Decoder failures on caller-supplied bytes are the caller's problem (400), never a 500.
      throw new InvalidRequest(`The ${format.toUpperCase()} image cannot be decoded: it is truncated or damaged`);
    }
    return { data: output.data, width: output.info.width, height: output.info.height, sourceFormat: format };
  });
}
