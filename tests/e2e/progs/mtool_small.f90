! MTOOL on a small subroutine called once per element (tests/e2e/t_mtool_small.sh), the twin of
! mtool_small.c: put_bits packs codes of 3 to 15 bits into a 4 KiB buffer (L1), like gzip's
! send_bits. Build with -fno-inline so that put_bits stays a procedure. Usage: mtool_small_f REPS
module bits
  implicit none
  integer :: bitbuf = 0, bitcnt = 0, outn = 0
  integer(1) :: outb(0:4095)
contains
  subroutine put_bits(value, length)
    integer, intent(in) :: value, length
    if (bitcnt > 16 - length) then
      bitbuf = ior(bitbuf, shiftl(value, bitcnt))
      outb(iand(outn, 4095)) = int(iand(bitbuf, 127), 1)
      outb(iand(outn + 1, 4095)) = int(iand(shiftr(bitbuf, 8), 127), 1)
      outn = outn + 2
      bitbuf = shiftr(iand(value, 65535), 16 - bitcnt)
      bitcnt = bitcnt + length - 16
    else
      bitbuf = ior(bitbuf, shiftl(value, bitcnt))
      bitcnt = bitcnt + length
    end if
  end subroutine put_bits

  subroutine encode(codes, lens, reps)
    integer, intent(in) :: codes(:), lens(:)
    integer(8), intent(in) :: reps
    integer(8) :: r
    integer :: i
    do r = 1, reps
      do i = 1, size(codes)
        call put_bits(codes(i), lens(i))
      end do
    end do
  end subroutine encode
end module bits

program mtool_small_f
  use bits
  implicit none
  integer, parameter :: n = 1024
  integer :: codes(n), lens(n), i
  integer(8) :: reps
  character(len=32) :: arg
  reps = 1000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) reps
  end if
  do i = 1, n
    lens(i) = 3 + mod((i - 1) * 7, 13)
    codes(i) = iand((i - 1) * 40503, shiftl(1, lens(i)) - 1)
  end do
  call encode(codes, lens, reps)
  print '(i0, 1x, i0)', sum(int(outb, 8)), outn
end program mtool_small_f
