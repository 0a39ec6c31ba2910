! The Fortran program of pmpi_fortran.f90 written with `use mpi_f08`: a strided view of integers,
! written with MPI_File_write_all, write_at_all, the split and nonblocking forms, read back with
! read_all / read_at_all, the hints changed with MPI_File_set_info. Some calls leave out the
! optional ierror, as mpi_f08 allows. run_pmpi.sh compares its files and reads natively and
! under the layer, and counts MCIO_STATS lines (Open MPI's mpi_f08 calls PMPI_ directly, so only
! the layer's f08 wrappers can serve it; MPICH's enters through the C names).
! Usage: pmpi_fortran_f08 <file> <dump prefix> <calls file>
program pmpi_fortran_f08
  use mpi_f08
  implicit none
  integer, parameter :: nb = 4, blk = 3, n = nb * blk
  integer :: ierr, rank, nprocs, i, failures, total, calls, u
  type(MPI_File) :: fh
  type(MPI_Datatype) :: ftype, vtype
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  type(MPI_Info) :: info
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext
  integer :: w(n), r(n)
  integer(kind=MPI_OFFSET_KIND) :: disp, off
  character(len=4096) :: fname, dname, cname

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call get_command_argument(1, fname)
  call get_command_argument(2, dname)
  call get_command_argument(3, cname)
  failures = 0
  calls = 0
  do i = 1, n
    w(i) = rank * 1000 + i
  end do
  call MPI_Type_vector(nb, blk, blk * nprocs, MPI_INTEGER, vtype)
  lb = 0
  ext = 4 * nb * blk * nprocs
  call MPI_Type_create_resized(vtype, lb, ext, ftype)
  call MPI_Type_commit(ftype)
  call MPI_Type_free(vtype)
  if (rank == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  disp = 4 * blk * rank + 8
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ftype, 'native', MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  call MPI_File_write_all(fh, w, n / 2, MPI_INTEGER, status, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  off = n / 2
  call MPI_File_write_at_all(fh, off, w(n / 2 + 1), n / 2, MPI_INTEGER, MPI_STATUS_IGNORE)
  calls = calls + 2
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'mcio_strategy', 'memory')
  call MPI_File_set_info(fh, info)
  call MPI_Info_free(info)
  off = n
  call MPI_File_write_at_all_begin(fh, off, w, n / 2, MPI_INTEGER)
  call MPI_File_write_at_all_end(fh, w, status, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  off = n + n / 2
  call MPI_File_iwrite_at_all(fh, off, w(n / 2 + 1), n / 2, MPI_INTEGER, req, ierr)
  call MPI_Wait(req, status)
  calls = calls + 2
  call MPI_File_sync(fh)

  call MPI_File_seek(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET)
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
  call MPI_File_read_at_all(fh, off, r, n, MPI_INTEGER, status)
  calls = calls + 1
  do i = 1, n
    if (r(i) /= w(i)) failures = failures + 1
  end do
  write(u) r
  close(u)
  call MPI_File_close(fh)
  call MPI_Type_free(ftype)
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    open(newunit=u, file=trim(cname), status='replace')
    write(u, '(I0)') calls
    close(u)
    print '(A,I0,A,I0,A)', 'pmpi_fortran_f08: ', nprocs, ' ranks, ', total, ' failures'
  end if
  call MPI_Finalize()
  if (total /= 0) error stop 1
contains
  function itoa(k) result(s)
    integer, intent(in) :: k
    character(len=16) :: s
    write(s, '(I0)') k
  end function itoa
end program pmpi_fortran_f08
