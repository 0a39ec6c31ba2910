! A Fortran MPI-IO program, built twice: with `use mpi` (pmpi_fortran) and with `use mpi_f08`
! (pmpi_fortran_f08, -DMCIO_F08). A strided view of integers, each rank's blocks interleaved with
! the others', written with MPI_File_write_all, MPI_File_write_at_all, the split and the
! nonblocking forms, the hints changed with MPI_File_set_info, read back with MPI_File_read_all /
! read_at_all and checked. With mpi_f08 some calls leave out the optional ierror (OPT_IERR).
! run_pmpi.sh compares its files and reads natively and under the layer, and counts MCIO_STATS
! lines. Open MPI's bindings (both) call PMPI_ directly, so only the layer's Fortran wrappers can
! serve them; MPICH's mpi_f08 data calls enter through the C names, its open/close/set_view/...
! through PMPI_.
! Usage: pmpi_fortran[_f08] <file> <dump prefix> <calls file>
#ifdef MCIO_F08
#define OPT_IERR
#define ONLY_IERR
#else
#define OPT_IERR , ierr
#define ONLY_IERR ierr
#endif
program pmpi_fortran
#ifdef MCIO_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: nb = 4, blk = 3, n = nb * blk
  integer :: ierr, rank, nprocs, i, failures, total, calls, u
#ifdef MCIO_F08
  type(MPI_File) :: fh
  type(MPI_Datatype) :: ftype, vtype
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  type(MPI_Info) :: info
#else
  integer :: fh, ftype, vtype, req, info
  integer :: status(MPI_STATUS_SIZE)
#endif
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext
  integer :: w(n), r(n)
  integer(kind=MPI_OFFSET_KIND) :: disp, off
  character(len=4096) :: fname, dname, cname

  call MPI_Init(ONLY_IERR)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank OPT_IERR)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs OPT_IERR)
  call get_command_argument(1, fname)
  call get_command_argument(2, dname)
  call get_command_argument(3, cname)
  failures = 0
  calls = 0
  do i = 1, n
    w(i) = rank * 1000 + i
  end do
  ! blocks of blk integers, one per rank in turn; copies of the view follow one another
  call MPI_Type_vector(nb, blk, blk * nprocs, MPI_INTEGER, vtype OPT_IERR)
  lb = 0
  ext = 4 * nb * blk * nprocs
  call MPI_Type_create_resized(vtype, lb, ext, ftype OPT_IERR)
  call MPI_Type_commit(ftype OPT_IERR)
  call MPI_Type_free(vtype OPT_IERR)
  if (rank == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL OPT_IERR)
  call MPI_Barrier(MPI_COMM_WORLD OPT_IERR)
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  disp = 4 * blk * rank + 8
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ftype, 'native', MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  ! the first half by the individual pointer, the second at an explicit offset (in integers)
  call MPI_File_write_all(fh, w, n / 2, MPI_INTEGER, status, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  off = n / 2
  call MPI_File_write_at_all(fh, off, w(n / 2 + 1), n / 2, MPI_INTEGER, MPI_STATUS_IGNORE OPT_IERR)
  calls = calls + 2
  call MPI_Info_create(info OPT_IERR)
  call MPI_Info_set(info, 'mcio_strategy', 'memory' OPT_IERR)
  call MPI_File_set_info(fh, info OPT_IERR)
  call MPI_Info_free(info OPT_IERR)
  ! again, one copy further, with the split and nonblocking forms
  off = n
  call MPI_File_write_at_all_begin(fh, off, w, n / 2, MPI_INTEGER OPT_IERR)
  call MPI_File_write_at_all_end(fh, w, status, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  off = n + n / 2
  call MPI_File_iwrite_at_all(fh, off, w(n / 2 + 1), n / 2, MPI_INTEGER, req, ierr)
  call MPI_Wait(req, status OPT_IERR)
  calls = calls + 2
  call MPI_File_sync(fh OPT_IERR)

  call MPI_File_seek(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET OPT_IERR)
  r = -1
  call MPI_File_read_all(fh, r, n, MPI_INTEGER, status, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  calls = calls + 1
  do i = 1, n
    if (r(i) /= w(i)) failures = failures + 1
  end do
  open(newunit=u, file=trim(dname) // '.' // trim(itoa(rank)), access='stream', status='replace')
  write(u) r
  off = n
  r = -1
  call MPI_File_read_at_all(fh, off, r, n, MPI_INTEGER, status OPT_IERR)
  calls = calls + 1
  do i = 1, n
    if (r(i) /= w(i)) failures = failures + 1
  end do
  write(u) r
  close(u)
  call MPI_File_close(fh OPT_IERR)
  call MPI_Type_free(ftype OPT_IERR)
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD OPT_IERR)
  if (rank == 0) then
    open(newunit=u, file=trim(cname), status='replace')
    write(u, '(I0)') calls
    close(u)
    print '(A,I0,A,I0,A)', 'pmpi_fortran: ', nprocs, ' ranks, ', total, ' failures'
  end if
  call MPI_Finalize(ONLY_IERR)
  if (total /= 0) error stop 1
contains
  function itoa(k) result(s)
    integer, intent(in) :: k
    character(len=16) :: s
    write(s, '(I0)') k
  end function itoa
end program pmpi_fortran
