import { createProject } from '../../../shared/projects/store.ts';
import type { Seeder } from './index.ts';

export const seedProjects: Seeder = async ({ owner }) => {
  const statuses = ['completed', 'completed', 'in_progress', 'pending', 'pending', 'completed'] as const;
  const project = await createProject(owner, {
    title: 'Spring trail launch',
    description: 'Content bundle for the spring collection launch.',
    mode: 'composer',
    composer_prompt: 'Plan a two-week launch across Instagram and the blog.',
    bundle_template: null,
    tasks: statuses.map((status, i) => ({
      title: `Launch asset ${i + 1}`,
      status,
      budget_usd: [120, 80.5, 200, 45.25, 60, 99.99][i] ?? 0,
    })),
  });
  return { project_id: project.id };
};
