/**
 * Reads the upload form of `POST {base}/users/{userID}/image`: `multipart/form-data` with one
 * file in the field `userimage` (docs/api.md "User management" "Update user image"). The limits are enforced by busboy
 * while the body streams in, so an oversized file is cut off at 5 MiB, never buffered whole.
 */
import type { FastifyRequest } from 'fastify';
import { AssentError, InvalidRequest, TooLarge, UnsupportedMediaType } from '../../platform/core/errors.js';
import { MAX_IMAGE_BYTES } from './decode.js';
import { boundaryOf, watchMultipart } from './form-guard.js';

/** The form field carrying the image (docs/api.md "User management"). */
export const IMAGE_FIELD = 'userimage';

/**
 * busboy limits of the upload form (ASVS 5.0 V5.2.1): one file of at most 5 MiB, a few small
 * fields (ignored), bounded part headers. Sizes in bytes.
 */
export const UPLOAD_LIMITS = {
  fileSize: MAX_IMAGE_BYTES,
  files: 1,
  fields: 8,
  fieldSize: 1024,
  fieldNameSize: 100,
  parts: 10,
  headerPairs: 20,
} as const;

/** The file is larger than the limit (`ASSENT_ERR_TOO_LARGE`, 413). */
class FileTooLarge extends TooLarge {
  constructor() {
    super(`The image is larger than 5 MiB (${MAX_IMAGE_BYTES} bytes)`);
  }
}

const NOT_MULTIPART = `The body must be multipart/form-data with the image in the field ${IMAGE_FIELD}`;

/**
 * Turns what the multipart reader threw into a 4xx with a clear message: every error of reading
 * a request body is the client's doing (a malformed or cut-off form), never a 500.
 */
function formError(err: unknown): AssentError {
  if (err instanceof AssentError) return err;
  switch ((err as { code?: unknown }).code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new FileTooLarge();
    case 'FST_FILES_LIMIT':
      return new InvalidRequest(`Send one file only, in the form field ${IMAGE_FIELD}`);
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new InvalidRequest(`The form has too many parts: send one file, in the form field ${IMAGE_FIELD}`);
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new UnsupportedMediaType(NOT_MULTIPART);
    default:
      return new InvalidRequest('The multipart body is malformed or incomplete');
  }
}

/** What the reader of the form may check before the file is read. */
export interface ImageFormOptions {
  /**
   * Called once, with the form's text fields that came before the first file part (or with all of
   * them when there is no file), before any file byte is read: the web dashboard checks its CSRF
   * token here (src/web/shared/guard.ts). What it throws ends the read and is the answer.
   */
  beforeFile?: (fields: Readonly<Record<string, string>>) => void;
}

/**
 * Reads the whole form and returns the bytes of its `userimage` file. Other fields are ignored but
 * for `options.beforeFile`.
 * @throws {UnsupportedMediaType} when the body is not multipart/form-data; {TooLarge} when the file exceeds
 *   5 MiB; {InvalidRequest} when there is no file, the file is in another field, there is more than one file,
 *   or the form is malformed.
 */
export async function readImageField(req: FastifyRequest, options: ImageFormOptions = {}): Promise<Buffer> {
  if (!req.isMultipart()) throw new UnsupportedMediaType(NOT_MULTIPART);
  const boundary = boundaryOf(req.headers['content-type']);
  if (!boundary) throw new InvalidRequest('The multipart body is malformed: its Content-Type has no boundary');
  // Refuses at once what the reader would wait on for ever (form-guard.ts); started before it pipes the body.
  const watch = watchMultipart(req.raw, boundary);
  const reading = readParts(req, options);
  reading.catch(() => {}); // when the watch wins, the reader ends with the closed connection
  try {
    const { image, otherField } = await Promise.race([reading, watch.failed]);
    if (otherField) throw new InvalidRequest(`The image must be sent in the form field ${IMAGE_FIELD}`);
    if (!image) throw new InvalidRequest(`The form carries no file: send the image in the field ${IMAGE_FIELD}`);
    return image;
  } finally {
    watch.stop();
  }
}

/** Reads every part; the `userimage` file's bytes, and whether a file came in another field. */
async function readParts(
  req: FastifyRequest,
  options: ImageFormOptions,
): Promise<{ image?: Buffer; otherField: boolean }> {
  let image: Buffer | undefined;
  let otherField = false;
  const fields: Record<string, string> = {};
  let checked = false;
  const check = () => {
    if (!checked) options.beforeFile?.(fields);
    checked = true;
  };
  try {
    for await (const part of req.parts()) {
      if (part.type !== 'file') {
        if (!checked && typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      check();
      if (part.fieldname === IMAGE_FIELD) image = await part.toBuffer();
      else {
        otherField = true;
        await part.toBuffer(); // drained under the same size limit, then dropped
      }
    }
    check();
  } catch (err) {
    throw formError(err);
  }
  return { image, otherField };
}
