! A Fortran MPI-IO program (use mpi): a strided view of integers, each rank's blocks interleaved
! with the others', written with MPI_File_write_all, MPI_File_write_at_all, the split and the
! nonblocking forms, read back with MPI_File_read_all / read_at_all and checked. run_pmpi.sh
! compares its files and reads natively and under the layer, and counts MCIO_STATS lines.
! Usage: pmpi_fortran <file> <dump prefix> <calls file>
program pmpi_fortran
  use mpi
  implicit none
  integer, parameter :: nb = 4, blk = 3, n = nb * blk
  integer :: ierr, rank, nprocs, fh, ftype, vtype, i, failures, total, calls, req, u
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext
  integer :: status(MPI_STATUS_SIZE)
  integer :: w(n), r(n)
  integer(kind=MPI_OFFSET_KIND) :: disp, off
  character(len=4096) :: fname, dname, cname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, fname)
  call get_command_argument(2, dname)
  call get_command_argument(3, cname)
  failures = 0
  calls = 0
  do i = 1, n
    w(i) = rank * 1000 + i
  end do
  ! blocks of blk integers, one per rank in turn; copies of the view follow one another
  call MPI_Type_vector(nb, blk, blk * nprocs, MPI_INTEGER, vtype, ierr)
  lb = 0
  ext = 4 * nb * blk * nprocs
  call MPI_Type_create_resized(vtype, lb, ext, ftype, ierr)
  call MPI_Type_commit(ftype, ierr)
  call MPI_Type_free(vtype, ierr)
  if (rank == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) failures = failures + 1
  disp = 4 * blk * rank + 8
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ftype, 'native', MPI_INFO_NULL, ierr)
  ! the first half by the individual pointer, the second at an explicit offset (in integers)
  call MPI_File_write_all(fh, w, n / 2, MPI_INTEGER, status, ierr)
  off = n / 2
  call MPI_File_write_at_all(fh, off, w(n / 2 + 1), n / 2, MPI_INTEGER, status, ierr)
  calls = calls + 2
  ! again, one copy further, with the split and nonblocking forms
  off = n
  call MPI_File_write_at_all_begin(fh, off, w, n / 2, MPI_INTEGER, ierr)
  call MPI_File_write_at_all_end(fh, w, status, ierr)
  off = n + n / 2
  call MPI_File_iwrite_at_all(fh, off, w(n / 2 + 1), n / 2, MPI_INTEGER, req, ierr)
  call MPI_Wait(req, status, ierr)
  calls = calls + 2
  call MPI_File_sync(fh, ierr)

  call MPI_File_seek(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
  r = -1
  call MPI_File_read_all(fh, r, n, MPI_INTEGER, status, ierr)
  calls = calls + 1
  do i = 1, n
    if (r(i) /= w(i)) failures = failures + 1
  end do
  open(newunit=u, file=trim(dname) // '.' // trim(itoa(rank)), access='stream', status='replace')
  write(u) r
  off = n
  r = -1
  call MPI_File_read_at_all(fh, off, r, n, MPI_INTEGER, status, ierr)
  calls = calls + 1
  do i = 1, n
    if (r(i) /= w(i)) failures = failures + 1
  end do
  write(u) r
  close(u)
  call MPI_File_close(fh, ierr)
  call MPI_Type_free(ftype, ierr)
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    open(newunit=u, file=trim(cname), status='replace')
    write(u, '(I0)') calls
    close(u)
    print '(A,I0,A,I0,A)', 'pmpi_fortran: ', nprocs, ' ranks, ', total, ' failures'
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1
contains
  function itoa(k) result(s)
    integer, intent(in) :: k
    character(len=16) :: s
    write(s, '(I0)') k
  end function itoa
end program pmpi_fortran
