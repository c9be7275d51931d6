-- Slurm's job_submit/lua for the partition synergyd owns (docs/slurm.md,
-- "Adding Synergy to a Slurm cluster"): only synergyd submits there. It
-- runs as root or SlurmUser and submits each lease with `sbatch --uid` of
-- the job's owner, so a partition limit on the job's user (RootOnly,
-- AllowGroups, AllowAccounts) would keep synergyd's own jobs out (RootOnly
-- leaves them PENDING with Reason=PartitionConfig for ever); Slurm gives
-- this plugin the uid that submits instead. Copy it next to slurm.conf as
-- job_submit.lua, set JobSubmitPlugins=lua, and edit the two values below.
-- A user's job naming the partition (alone or in a list) is refused at
-- sbatch, srun and salloc, and so is moving a job into it with scontrol.
-- The partition must not be the cluster's default (Default=NO): a job that
-- names no partition is not seen as asking for it here.

local synergy_partition = "synergy"
-- The uids synergyd submits as: root, and SlurmUser's where it is not root.
local synergyd_uids = { [0] = true }

local function names_synergy(partitions)
  if partitions == nil then
    return false
  end
  for p in string.gmatch(partitions, "[^,]+") do
    if p == synergy_partition then
      return true
    end
  end
  return false
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  if names_synergy(job_desc.partition) and not synergyd_uids[submit_uid] then
    slurm.log_user("partition %s takes jobs from synergyd only: submit with synergyctl", synergy_partition)
    return slurm.ERROR
  end
  return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  if names_synergy(job_desc.partition) and not synergyd_uids[modify_uid] then
    slurm.log_user("partition %s takes jobs from synergyd only", synergy_partition)
    return slurm.ERROR
  end
  return slurm.SUCCESS
end

return slurm.SUCCESS
