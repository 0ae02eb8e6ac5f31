# Sourced by the MPI tests (t702, t704, t705): the environment of their mpirun.
# Open MPI wants to be told that running as root (as CI does) and more ranks than cores are
# meant; its shared-memory transport copies without cross-process memory access, which
# containers often forbid. Other MPIs ignore these variables.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# The launchers' local rank variables of an enclosing job must not choose for the tests.
unset OMPI_COMM_WORLD_LOCAL_RANK MPI_LOCALRANKID MV2_COMM_WORLD_LOCAL_RANK SLURM_LOCALID
