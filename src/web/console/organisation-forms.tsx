/**
 * The forms of the console's organisation page (docs/web.md "Console"): data retention, a purpose,
 * a data attribute (each to add or edit) and a deletion with its confirmation box. Each is filled
 * in with the stored values, or, when it was just refused, with the values as sent and the error
 * next to the field that caused it (`form-state.tsx`).
 */
import type { DataAttributeBody, OrganisationBody } from '../../consent/index.js';
import {
  CheckboxGroup,
  FieldError,
  FormError,
  invalidAttrs,
  type RefusedForm,
  shown,
  TextField,
} from '../shared/form-state.js';
import { Csrf } from '../shared/layout.js';

/** A refused form of the organisation page, and which one: `retention`, `p-new`, `p-{ID}`, `t-new`, `t-{ID}`, `p-{ID}-delete`, `t-{ID}-delete`. */
export interface RefusedOrgForm extends RefusedForm {
  form: string;
}

/** The refused form when it is this one. */
export const refusedHere = (refused: RefusedOrgForm | undefined, form: string) =>
  refused?.form === form ? refused : undefined;

const DAY = 86_400;

/** The required name of a purpose or data attribute (at most 200 characters, as `PurposeInput` and `DataAttributeInput`). */
function nameField(id: string, name: string, stored: string, refused: RefusedForm | undefined) {
  return (
    <TextField
      id={id}
      name={name}
      label="Name"
      required
      maxLength={200}
      value={shown(refused, name, stored)}
      refused={refused}
    />
  );
}

/** The data retention form. */
export function RetentionForm(props: {
  action: string;
  csrfToken: string;
  retention: OrganisationBody['DataRetention'];
  refused?: RefusedForm;
}) {
  const r = props.refused;
  const stored = String(Math.max(1, Math.round(props.retention.RetentionPeriod / DAY)));
  const enabled = r ? r.values.enabled === 'on' : props.retention.Enabled;
  return (
    <form method="post" action={props.action}>
      <FormError refused={r} />
      <Csrf token={props.csrfToken} />
      <label>
        <input type="checkbox" name="enabled" value="on" checked={enabled} /> Retention on
      </label>
      <label for="period">Period (days)</label>
      <input
        id="period"
        name="days"
        type="number"
        min="1"
        max="36500"
        required
        value={shown(r, 'days', stored)}
        {...invalidAttrs(r, 'days', 'period')}
      />
      <FieldError refused={r} name="days" id="period" />
      <p>
        <button type="submit">Save retention</button>
      </p>
    </form>
  );
}

/** A purpose's form (`p` absent: a new one). */
export function PurposeForm(props: {
  action: string;
  csrfToken: string;
  p?: OrganisationBody['Purposes'][number];
  submit: string;
  refused?: RefusedForm;
}) {
  const { action, csrfToken, p, submit, refused: r } = props;
  const id = p ? `p-${p.ID}` : 'p-new';
  const lawful = r ? r.values.lawfulusage === 'on' : (p?.LawfulUsage ?? false);
  return (
    <form method="post" action={action}>
      <FormError refused={r} />
      <Csrf token={csrfToken} />
      {nameField(`${id}-name`, 'name', p?.Name ?? '', r)}
      <TextField
        id={`${id}-description`}
        name="description"
        label="Description"
        maxLength={2000}
        value={shown(r, 'description', p?.Description ?? '')}
        refused={r}
      />
      <TextField
        id={`${id}-policyurl`}
        name="policyurl"
        label="Policy URL (http or https)"
        maxLength={2000}
        inputMode="url"
        value={shown(r, 'policyurl', p?.PolicyURL ?? '')}
        refused={r}
      />
      <label>
        <input type="checkbox" name="lawfulusage" value="on" checked={lawful} /> The lawful basis is not consent
      </label>
      <p>
        <button type="submit">{submit}</button>
      </p>
    </form>
  );
}

/** A data attribute's form (`a` absent: a new one). */
export function AttributeForm(props: {
  action: string;
  csrfToken: string;
  purposes: OrganisationBody['Purposes'];
  a?: DataAttributeBody;
  submit: string;
  refused?: RefusedForm;
}) {
  const { action, csrfToken, purposes, a, submit, refused: r } = props;
  const id = a ? `t-${a.ID}` : 't-new';
  return (
    <form method="post" action={action}>
      <FormError refused={r} />
      <Csrf token={csrfToken} />
      {nameField(`${id}-name`, 'consent', a?.Consent ?? '', r)}
      <CheckboxGroup
        id={`${id}-purposes`}
        name="purposeids"
        legend="Purposes"
        options={purposes.map((p) => ({ value: p.ID, label: p.Name }))}
        stored={(pid) => a?.PurposeIDs.includes(pid) ?? false}
        refused={r}
      />
      <p>
        <button type="submit">{submit}</button>
      </p>
    </form>
  );
}

/**
 * A deletion's form with its confirmation step (as the unsubscribe form of `individual.tsx`): the box
 * must be ticked, which the browser checks (`required`) and the route checks again.
 * @param id - the form's ID (`p-{ID}-delete`, `t-{ID}-delete`), also its box's prefix.
 * @param consequence - what the deletion does, said in the box's label.
 */
export function DeleteForm(props: {
  id: string;
  action: string;
  csrfToken: string;
  what: string;
  consequence: string;
  refused?: RefusedForm;
}) {
  const box = `${props.id}-confirm`;
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrfToken} />
      <label>
        <input
          id={box}
          type="checkbox"
          name="confirm"
          value="on"
          required
          {...invalidAttrs(props.refused, 'confirm', box)}
        />{' '}
        I confirm: delete {props.what}. {props.consequence}
      </label>
      <FieldError refused={props.refused} name="confirm" id={box} />
      <p>
        <button type="submit" class="danger" aria-label={`Delete ${props.what}`}>
          Delete
        </button>
      </p>
    </form>
  );
}
