/**
 * A refused form of the web front ends (docs/web.md "Console", "Refused forms"): the page is shown
 * again with what was typed and the error next to the field that caused it (WCAG 2.2 SC 3.3.1 Error
 * Identification, 3.3.3 Error Suggestion; the field carries `aria-invalid` and `aria-describedby`
 * naming its message), instead of a page that loses the input (docs/decisions/0029-refused-console-forms.md).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AssentError } from '../../platform/core/errors.js';
import { httpStatusOf } from '../../platform/http/errors.js';

/**
 * A form route's answer to its own refusal (the route config's `refused`, called by the web error
 * handler): the page again, with the form as sent and the error by its field, and the error's status;
 * null when the error is not about the form (the error page then answers).
 */
export type FormRefusal = (
  request: FastifyRequest,
  reply: FastifyReply,
  error: FastifyError | AssentError,
) => Promise<FastifyReply | null>;

/** A form refused by the route's schema or by its service. */
export interface RefusedForm {
  /** The fields as sent, each a text or a list of texts; write-only fields (passwords, keys) left out. */
  values: Record<string, string | string[]>;
  /** The message of the field that caused the refusal, by field name. */
  fields: Record<string, string>;
  /** A message about the whole form, when no one field caused it. */
  error?: string;
}

/** The errors by field of a refused form (a `RefusedForm`, or a form shown with one message that may name fields too). */
export interface FieldErrors {
  fields?: Record<string, string>;
}

/** One ajv error of a schema validation (Fastify's `error.validation`). */
interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** The text a person reads for a field the route's schema refused (by ajv keyword). */
function schemaMessage(e: SchemaError, field: string): string {
  // A confirmation box (`confirm`, docs/web.md) left unticked.
  if (field === 'confirm') return 'Tick this box to confirm.';
  const limit = e.params.limit;
  switch (e.keyword) {
    case 'required':
      return 'This field is required.';
    case 'minLength':
      return limit === 1 ? 'This field is required.' : `Enter at least ${limit} characters.`;
    case 'maxLength':
      return `Enter at most ${limit} characters.`;
    case 'pattern':
      return /url/i.test(field)
        ? 'Enter a web address that starts with http:// or https://, without spaces.'
        : 'This value is not in the form it must have.';
    case 'maxItems':
      return `Choose at most ${limit}.`;
    default:
      return 'This value is not in the form it must have.';
  }
}

/**
 * The refused form of a route's error, or null when the error is not about what was typed (an
 * unknown organisation, a missing role, a bad path or query: those keep the error page).
 * @param error - the route's error: a schema validation of the body, or the service's 400 or 409.
 * @param body - the body as parsed (what the browser sent).
 * @param writeOnly - fields never shown again (passwords, private keys, secrets).
 * @param fieldOf - names the field a service's message is about, or undefined for the whole form.
 */
export function refusedForm(
  error: FastifyError | AssentError,
  body: unknown,
  writeOnly: readonly string[] = [],
  fieldOf: (message: string) => string | undefined = () => undefined,
): RefusedForm | null {
  const values: Record<string, string | string[]> = {};
  if (body && typeof body === 'object')
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      // Threat: a password, key or secret echoed into a page (kept in history, a proxy, a screenshot).
      if (k === '_csrf' || writeOnly.includes(k)) continue;
      if (typeof v === 'string') values[k] = v;
      else if (Array.isArray(v)) values[k] = v.filter((x): x is string => typeof x === 'string');
    }
  if ((error as FastifyError).validation) {
    if ((error as FastifyError).validationContext !== 'body') return null;
    const first = (error as FastifyError).validation![0] as unknown as SchemaError;
    const field = first.instancePath.split('/')[1] || String(first.params.missingProperty ?? '');
    if (!field) return { values, fields: {}, error: 'The form could not be read. Check what you entered.' };
    return { values, fields: { [field]: schemaMessage(first, field) } };
  }
  if (error instanceof AssentError && (httpStatusOf(error) === 400 || httpStatusOf(error) === 409)) {
    const field = fieldOf(error.message);
    return field ? { values, fields: { [field]: error.message } } : { values, fields: {}, error: error.message };
  }
  return null;
}

/** A field's value in a refused form, else its stored value. */
export function shown(refused: RefusedForm | undefined, name: string, stored: string): string {
  const v = refused?.values[name];
  return refused ? (typeof v === 'string' ? v : '') : stored;
}

/**
 * The attributes that tie a field to its error (`aria-invalid`, `aria-describedby`), or none when
 * the field is fine.
 * @param id - the field's element ID; its message is `{id}-error`.
 */
export function invalidAttrs(
  refused: FieldErrors | undefined,
  name: string,
  id: string,
): { 'aria-invalid'?: 'true'; 'aria-describedby'?: string } {
  return refused?.fields?.[name] ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-error` } : {};
}

/** The message of a field (placed right after it), or nothing. */
export function FieldError({ refused, name, id }: { refused: FieldErrors | undefined; name: string; id: string }) {
  const message = refused?.fields?.[name];
  if (!message) return null;
  return (
    <p id={`${id}-error`} class="field-error">
      {message}
    </p>
  );
}

/** The alert of a refused form whose error is shown by its field. */
export const MARKED = 'Nothing was saved: correct the field marked below.';

/** The message about a whole refused form, at its top, or nothing. */
export function FormError({ refused }: { refused: RefusedForm | undefined }) {
  if (!refused) return null;
  const count = Object.keys(refused.fields).length;
  const text = refused.error ?? (count > 0 ? MARKED : undefined);
  if (!text) return null;
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

/**
 * The field a service's message names, from the form's field names and the API's names for them
 * (`webhook.url` for `webhookurl`): the first that the message starts with or names as a word.
 * @param names - the API's name by the form's field name (the same when absent).
 */
export function fieldNamedIn(message: string, fields: readonly string[], names: Record<string, string> = {}) {
  const text = message.toLowerCase().replace(/^invalid request: /, '');
  return fields.find((f) => {
    const name = (names[f] ?? f).toLowerCase();
    return text.startsWith(name) || new RegExp(`\\b${name.replace(/\./g, '\\.')}\\b`).test(text);
  });
}

/**
 * A text field with its label and, when its form was refused, its error right after it.
 * @param hint - the ID of a hint the field is also described by, if any.
 */
export function TextField(props: {
  id: string;
  name: string;
  label: string;
  value: string;
  refused: FieldErrors | undefined;
  maxLength: number;
  required?: boolean;
  type?: 'text' | 'email' | 'tel' | 'password';
  inputMode?: 'url';
  autocomplete?: string;
  hint?: string;
}) {
  const { id, name, refused } = props;
  const invalid = invalidAttrs(refused, name, id);
  const describedBy = [props.hint, invalid['aria-describedby']].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={name}
        // One of the text-like types; Preact's typing keys on a literal, so it is narrowed to one.
        type={(props.type ?? 'text') as 'text'}
        required={props.required}
        maxLength={props.maxLength}
        inputMode={props.inputMode}
        autocomplete={props.autocomplete}
        value={props.value}
        aria-invalid={invalid['aria-invalid']}
        aria-describedby={describedBy}
      />
      <FieldError refused={refused} name={name} id={id} />
    </>
  );
}

/** A textarea with its label and, when its form was refused, its error right after it. */
export function TextArea(props: {
  id: string;
  name: string;
  label: string;
  value: string;
  refused: FieldErrors | undefined;
  rows: number;
  required?: boolean;
}) {
  const { id, name, refused } = props;
  return (
    <>
      <label for={id}>{props.label}</label>
      <textarea id={id} name={name} rows={props.rows} required={props.required} {...invalidAttrs(refused, name, id)}>
        {props.value}
      </textarea>
      <FieldError refused={refused} name={name} id={id} />
    </>
  );
}

/**
 * A group of checkboxes sharing one name (a list field, e.g. `purposeids`), ticked as stored or, when
 * refused, as sent; the error of the list follows its boxes, and each box carries `aria-invalid`.
 * @param id - the fieldset's ID; its message is `{id}-error`.
 * @param stored - whether a box is ticked when the form was not refused.
 */
export function CheckboxGroup(props: {
  id: string;
  name: string;
  legend: string;
  options: Array<{ value: string; label: string }>;
  stored: (value: string) => boolean;
  refused: RefusedForm | undefined;
}) {
  const { id, name, refused: r } = props;
  const sent = r?.values[name];
  const ticked = (v: string) => (r ? (Array.isArray(sent) ? sent.includes(v) : sent === v) : props.stored(v));
  const invalid = invalidAttrs(r, name, id);
  return (
    <fieldset id={id} aria-describedby={invalid['aria-describedby']}>
      <legend>{props.legend}</legend>
      {props.options.map((o) => (
        <label key={o.value}>
          <input
            type="checkbox"
            name={name}
            value={o.value}
            checked={ticked(o.value)}
            aria-invalid={invalid['aria-invalid']}
          />{' '}
          {o.label}
        </label>
      ))}
      <FieldError refused={r} name={name} id={id} />
    </fieldset>
  );
}
