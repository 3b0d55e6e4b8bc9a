// The process's MPI state, for the communicators (not for the trainer): initialisation on first
// use, and what happens at exit. A plain process never initialises MPI.
//
// At exit (atexit, registered by init): a process that finished normally calls MPI_Finalize;
// one marked failed (a collective timed out, or an exception passed a FailureGuard) calls
// MPI_Abort on MPI_COMM_WORLD, which makes mpirun stop every rank of the job. Exiting without
// either would leave the decision to the launcher (OpenMPI's mpirun also kills a job whose rank
// exits non-zero, other launchers may not).
#pragma once

namespace realmt::distributed::mpi {

// Whether this build has MPI.
bool available();
// MPI_Init_thread (MPI_THREAD_FUNNELED: only the thread that runs the trainer calls MPI) once;
// later calls do nothing. Throws when the build has no MPI.
void init();
bool initialized();
// Marks the process failed (see above). Safe to call without MPI.
void mark_failed();
bool failed();

}  // namespace realmt::distributed::mpi
