// The generated document against ../shared/spec/api-spec.md: per spec resource, every field with its
// type, nullability, presence and default, compared with the response schema the code declares.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { generateOpenApiDocument } from '../../infra/local/openapi.ts';

/** [type, nullable (undefined: the spec does not say), default?] */
type Field = [type: string, nullable: boolean | undefined, defaultValue?: unknown];

const S = (nullable?: boolean): Field => ['string', nullable];
const UUID = (nullable?: boolean): Field => ['uuid', nullable];
const TIME = (nullable?: boolean): Field => ['date-time', nullable];
const INT: Field = ['integer', undefined];
const ARRAY: Field = ['array', undefined];
const OBJECT: Field = ['object', undefined];
const names = (list: string, field: Field) => Object.fromEntries(list.split(/,\s*/).map((n) => [n, field]));

const teamDetail: Record<string, Field> = {
  id: UUID(false),
  ...names('team_type, display_name, status, tier, operation_mode', S(false)),
  created_at: TIME(false),
  updated_at: TIME(false),
  workflow_phase: ['string', false, 'onboarding'],
  workflow_phase_label: ['string', false, 'Setting Up'],
  trigger_mode: ['string', false, 'strategy-driven'],
  default_currency: ['string', false, 'USD'],
  onboarding_step: ['string', false, 'pending'],
  ...names('auto_config, orchestrator_cadence, content_strategy, config', OBJECT),
  payments_subscription_id: S(true),
  connected_accounts: ['array', false, []],
  brand_kit_id: UUID(true),
  brand_id: UUID(true),
  brand_name: S(true),
  ...names('hired_at, paused_at, cancelled_at, subscription_ends_at', TIME(true)),
};
const teamMember = {
  id: UUID(),
  ...names('role, agent_slug, display_name, persona_name', S()),
  capabilities: ARRAY,
  agent_classes: ARRAY,
  hired_agent_id: UUID(),
  current_activity: OBJECT,
};
const teamTask = {
  id: UUID(),
  ...names('task_type, title, description, status, priority, platform, publish_url, evaluation_notes', S()),
  ...names('quality_score, revision_count, max_revisions', INT),
  ...names('scheduled_for, published_at, started_at, completed_at, created_at', TIME()),
  assigned_member_id: UUID(),
  input_data: OBJECT,
  output_data: OBJECT,
};
const activityEntry = {
  id: UUID(),
  ...names('action_type, description, source, severity', S()),
  details: OBJECT,
  member_id: UUID(),
  team_task_id: UUID(),
  created_at: TIME(),
};
const loopInstance = {
  ...names('id, loop_id, cycle_instance_id', UUID()),
  occurrence_day: INT,
  ...names('status, task_status, task_title, task_platform', S()),
  ...names('scheduled_at, publish_at, started_at, completed_at, created_at, task_scheduled_for', TIME()),
  signals_emitted: ARRAY,
};
const integrationStatus = {
  id: UUID(false),
  provider: S(false),
  account_id: S(true),
  account_name: S(true),
  status: S(false),
  scopes: ARRAY,
  last_synced_at: TIME(true),
  token_expires_at: TIME(true),
  created_at: TIME(false),
  has_oauth_credentials: ['boolean', false, false] as Field,
  social_pages: ARRAY,
  social_user_id: S(true),
};
const brandKitDraft = {
  ...names(
    'name, brand_voice, target_audience, logo_wordmark, logo_wordmark_font, primary_color, secondary_color, accent_color, font_headings, font_body, imagery_style, tagline, mission_statement, industry, location, website_url',
    S(true),
  ),
  ...names(
    'logo_url, logo_icon_url, logo_dark_url, logo_square_url, logo_key, logo_icon_key, logo_dark_key, logo_square_key',
    S(true),
  ),
  logo_fields_authoritative: ['boolean', false, false] as Field,
  ...names('tone_keywords, competitors, seo_keywords, content_pillars', ARRAY),
  color_palette: ['array', true] as Field,
  social_links: ['object', true] as Field,
  social_profiles: ['object', true] as Field,
};

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes
type Node = any;
const items = (schema: Node) => schema.items;
const prop = (name: string) => (schema: Node) => schema.properties[name];
const at =
  (...steps: ((schema: Node) => Node)[]) =>
  (schema: Node) =>
    steps.reduce((node, step) => step(node), schema);

/** Field tables transcribed from the spec ("Resources and their fields"); `extra` names the fields
 * this service adds on purpose (each documented in docs/). */
const SPEC: {
  resource: string;
  operation: [method: string, path: string, status: number];
  select?: (schema: Node) => Node;
  fields: Record<string, Field>;
  extra?: string[];
}[] = [
  {
    resource: 'Brand',
    operation: ['get', '/api/v1/brands/{brand_id}', 200],
    fields: {
      id: UUID(false),
      name: S(false),
      created_at: TIME(false),
      updated_at: TIME(false),
      ...names('website_url, logo_url, industry, description, partner_slug', S(true)),
      brand_kit_count: ['integer', false, 0],
      audit_count: ['integer', false, 0],
      competitor_count: ['integer', false, 0],
    },
  },
  {
    resource: 'Project',
    operation: ['get', '/api/v1/projects/{project_id}', 200],
    fields: {
      id: UUID(false),
      user_id: S(false),
      ...names('title, status, mode', S(false)),
      created_at: TIME(false),
      updated_at: TIME(false),
      ...names('description, composer_prompt, bundle_template', S(true)),
      project_tasks: ['array', false, []],
      task_count: ['integer', false, 0],
      completed_count: ['integer', false, 0],
      total_budget_usd: ['number', false, 0],
    },
  },
  {
    resource: 'Brand kit draft',
    operation: ['post', '/api/v1/brand-kits/generate-from-upload', 200],
    fields: brandKitDraft,
  },
  {
    resource: 'Integration status',
    operation: ['put', '/api/v1/workspaces/{workspace_id}/integrations/ads-provider/credentials', 200],
    fields: integrationStatus,
  },
  {
    resource: 'Integration status (listing)',
    operation: ['get', '/api/v1/workspaces/{workspace_id}/integrations', 200],
    select: items,
    fields: integrationStatus,
  },
  {
    resource: 'Workspace task',
    operation: ['get', '/api/v1/workspaces/{workspace_id}/tasks', 200],
    select: items,
    fields: {
      ...names('id, workspace_id, hired_agent_id', UUID(false)),
      ...names('skill_slug, title, schedule_type, status, priority, approval_level', S(false)),
      description: S(true),
      ...names('trigger, output_data, proposed_actions', OBJECT),
      approved_by: UUID(true),
      ...names('approved_at, started_at, completed_at', TIME(true)),
      cost_usd: ['number', false],
      created_at: TIME(false),
    },
  },
  {
    resource: 'Team (dashboard)',
    operation: ['get', '/api/v1/teams/{team_id}/dashboard', 200],
    select: prop('team'),
    fields: {
      ...teamDetail,
      members: ARRAY,
      recent_activity: ['array', undefined, []],
      content_cadence: ['array', undefined, []],
    },
  },
  {
    resource: 'Team (unsubscribe)',
    operation: ['post', '/api/v1/teams/{team_id}/unsubscribe', 200],
    fields: teamDetail,
  },
  {
    resource: 'Team member',
    operation: ['get', '/api/v1/teams/{team_id}/dashboard', 200],
    select: at(prop('team'), prop('members'), items),
    fields: teamMember,
  },
  {
    resource: 'Team task list',
    operation: ['get', '/api/v1/teams/{team_id}/tasks', 200],
    fields: { tasks: ARRAY, total: INT },
  },
  {
    resource: 'Team task',
    operation: ['get', '/api/v1/teams/{team_id}/tasks', 200],
    select: at(prop('tasks'), items),
    fields: teamTask,
  },
  {
    resource: 'Team activity list',
    operation: ['get', '/api/v1/teams/{team_id}/activity', 200],
    fields: { activity: ARRAY, total: INT },
  },
  {
    resource: 'Team activity entry',
    operation: ['get', '/api/v1/teams/{team_id}/activity', 200],
    select: at(prop('activity'), items),
    fields: activityEntry,
  },
  {
    resource: 'Strategy history',
    operation: ['get', '/api/v1/teams/{team_id}/strategy-history', 200],
    select: at(prop('strategies'), items),
    fields: {
      cycle_instance_id: UUID(),
      instance_number: INT,
      strategy_status: S(),
      start_date: TIME(),
      end_date: TIME(),
      strategy_revision_count: ['integer', undefined, 0],
      content_strategy: OBJECT,
    },
  },
  {
    resource: 'Strategy brief history',
    operation: ['get', '/api/v1/teams/{team_id}/strategy-briefs', 200],
    select: at(prop('items'), items),
    fields: { id: UUID(), created_at: TIME(), brief_preview: S(), cycle_instance_id: UUID() },
  },
  {
    resource: 'Dashboard aggregate',
    operation: ['get', '/api/v1/teams/{team_id}/dashboard', 200],
    fields: {
      team: OBJECT,
      tasks: OBJECT,
      activity: OBJECT,
      strategy_history: OBJECT,
      strategy_briefs: OBJECT,
      canvas_layout: OBJECT,
    },
  },
  {
    resource: 'Today view',
    operation: ['get', '/api/v1/teams/{team_id}/today', 200],
    fields: {
      cycle_day: ['integer', true],
      cycle_progress: ['number', undefined, 0],
      current_phase: S(true),
      ...names('running, upcoming, completed_today, signals_fired', ARRAY),
    },
  },
  {
    resource: 'Loop instance',
    operation: ['get', '/api/v1/teams/{team_id}/today', 200],
    select: at(prop('running'), items),
    fields: loopInstance,
  },
  {
    resource: 'Calendar entry',
    operation: ['post', '/api/v1/teams/{team_id}/calendar/generate', 200],
    select: at(prop('entries'), items),
    fields: {
      id: UUID(),
      ...names('title, task_type, platform, status', S()),
      scheduled_for: TIME(),
      assigned_member: OBJECT,
      published_at: TIME(),
    },
  },
  {
    resource: 'Avatar upload result',
    operation: ['post', '/api/v1/teams/{team_id}/avatar/upload', 202],
    fields: names('avatar_id, status, type, consent_url', S()),
    // The headers the consent PUT is signed with (If-None-Match: *: it stores once).
    extra: ['consent_headers'],
  },
  {
    resource: 'Product search response',
    operation: ['post', '/api/v1/shopping/sessions/{session_id}/search', 200],
    fields: { query: S(false), results: ARRAY, total_count: INT, source: S(false) },
  },
  {
    resource: 'Product search result',
    operation: ['post', '/api/v1/shopping/sessions/{session_id}/search', 200],
    select: at(prop('results'), items),
    fields: {
      ...names(
        'title, product_url, currency, image_url, affiliate_url, merchant_domain, merchant_type, source',
        S(),
      ),
      price_cents: INT,
      rating: ['number', undefined],
    },
  },
];

const describeField = (schema: Node): [string, boolean, unknown] => {
  const variants: Node[] = schema.anyOf ?? [schema];
  const nonNull = variants.filter((variant) => variant.type !== 'null');
  const [main] = nonNull;
  const constant = main?.const ?? main?.enum?.[0];
  const type =
    main?.format === 'uuid' || main?.format === 'date-time'
      ? main.format
      : (main?.type ?? (constant === undefined ? 'any' : typeof constant));
  return [type, nonNull.length < variants.length, schema.default];
};

// biome-ignore lint/suspicious/noExplicitAny: the document is inspected freely
let document: any;
before(async () => {
  document = await generateOpenApiDocument();
});

describe('generated schemas match the spec', () => {
  for (const { resource, operation, select, fields, extra = [] } of SPEC) {
    it(`${resource}: every spec field with its type, nullability and default`, () => {
      const [method, path, status] = operation;
      const response = document.paths[path][method].responses[status].content['application/json'].schema;
      const schema = select ? select(response) : response;
      assert.deepEqual(
        Object.keys(schema.properties).sort(),
        [...Object.keys(fields), ...extra].sort(),
        `${resource}: fields`,
      );
      for (const [name, [type, nullable, defaultValue]] of Object.entries(fields)) {
        const [actualType, actualNullable, actualDefault] = describeField(schema.properties[name]);
        assert.equal(actualType, type, `${resource}.${name}: type`);
        if (nullable !== undefined)
          assert.equal(actualNullable, nullable, `${resource}.${name}: nullability`);
        if (defaultValue !== undefined)
          assert.deepEqual(actualDefault, defaultValue, `${resource}.${name}: default`);
        if (nullable === false)
          assert.ok(schema.required?.includes(name), `${resource}.${name} is always present`);
      }
    });
  }
});
