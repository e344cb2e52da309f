import { newId } from '../../../shared/ids.ts';
import { connectAdsAccount, saveAdsCredentials } from '../../../shared/workspaces/credentials.ts';
import { advanceWorkspaceTask, type TaskProgress } from '../../../shared/workspaces/progress.ts';
import type { WorkspaceTaskStatus } from '../../../shared/workspaces/schemas.ts';
import { createWorkspace } from '../../../shared/workspaces/store.ts';
import { createWorkspaceTask } from '../../../shared/workspaces/tasks.ts';
import type { Seeder } from './index.ts';

/** Recognisable secrets: no response of the running service may ever contain them. */
export const SEED_SECRETS = {
  clientSecret: 'seed-ads-client-secret-never-in-a-response',
  userAccessToken: 'seed-ads-user-token-never-in-a-response',
  pageAccessToken: 'seed-ads-page-token-never-in-a-response',
} as const;

const SKILLS = ['ad-copy', 'social-post', 'audience-research', 'campaign-report'] as const;

/** The steps from `pending` to each seeded status (each one a conditional status change). */
const PATHS: Record<WorkspaceTaskStatus, WorkspaceTaskStatus[]> = {
  pending: [],
  awaiting_approval: ['awaiting_approval'],
  approved: ['awaiting_approval', 'approved'],
  in_progress: ['awaiting_approval', 'approved', 'in_progress'],
  completed: ['awaiting_approval', 'approved', 'in_progress', 'completed'],
  failed: ['in_progress', 'failed'],
  cancelled: ['cancelled'],
};
/** 64 tasks: 8 rounds of this mix. */
const MIX: WorkspaceTaskStatus[] = [
  'completed',
  'completed',
  'pending',
  'in_progress',
  'awaiting_approval',
  'completed',
  'pending',
  'failed',
];
const TASK_COUNT = 64;

export const seedWorkspaces: Seeder = async ({ owner, other }) => {
  const workspace = await createWorkspace(owner, { name: 'Northwind growth team' });
  await createWorkspace(other, { name: 'Other User Workspace' });

  await saveAdsCredentials(owner, workspace.id, {
    client_id: '1029384756102938',
    client_secret: SEED_SECRETS.clientSecret,
  });
  await connectAdsAccount(workspace.id, {
    account_id: 'act_5550001',
    account_name: 'Northwind Outfitters Ads',
    scopes: ['ads_management', 'pages_manage_posts', 'pages_read_engagement'],
    token_expires_at: new Date(Date.now() + 60 * 86_400_000).toISOString(),
    social_user_id: '10230001',
    user_access_token: SEED_SECRETS.userAccessToken,
    pages: [
      { id: '104300101', name: 'Northwind Outfitters', access_token: SEED_SECRETS.pageAccessToken },
      { id: '104300102', name: 'Northwind Trail Club', access_token: `${SEED_SECRETS.pageAccessToken}-2` },
    ],
  });

  const agents = [newId(), newId(), newId()];
  // In order, so the list's newest-first order is the reverse of i.
  for (let i = 0; i < TASK_COUNT; i++) {
    const skill = SKILLS[i % SKILLS.length]!;
    const seeded = MIX[i % MIX.length]!;
    // Only an `approve` task waits for a member's approval: a task awaiting one is of that level, and
    // the others run without (an `auto` task awaiting approval contradicted what the level means).
    const level =
      seeded === 'awaiting_approval' ? 'approve' : (['auto', 'review', 'approve'] as const)[i % 3]!;
    const task = await createWorkspaceTask(owner, workspace.id, {
      skill_slug: skill,
      title: `${skill.replace('-', ' ')} #${i + 1}`,
      description: i % 5 === 0 ? null : `Demo ${skill} task for the spring campaign.`,
      schedule_type: i % 3 === 0 ? 'recurring' : 'once',
      priority: (['low', 'normal', 'high', 'urgent'] as const)[i % 4]!,
      approval_level: level,
      trigger: i % 3 === 0 ? { cron: '0 9 * * MON', timezone: 'Europe/Berlin' } : { source: 'manual' },
      hired_agent_id: agents[i % agents.length]!,
    });
    let from: WorkspaceTaskStatus = 'pending';
    const path = PATHS[seeded].filter(
      (status) => level === 'approve' || (status !== 'awaiting_approval' && status !== 'approved'),
    );
    for (const status of path) {
      const progress: TaskProgress = { status };
      if (status === 'approved') progress.approved_by = owner;
      if (status === 'completed') {
        progress.cost_usd = Math.round((0.05 + (i % 7) * 0.137) * 10_000) / 10_000;
        progress.output_data = { summary: `Finished ${skill}`, items: (i % 4) + 1 };
        progress.proposed_actions = { publish: { channel: 'social', at: 'next-slot' } };
      }
      if (status === 'failed') progress.output_data = { error: 'Provider rate limit reached' };
      await advanceWorkspaceTask(workspace.id, task.id, from, progress);
      from = status;
    }
  }
  return { workspace_id: workspace.id };
};
