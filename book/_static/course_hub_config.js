/* The course hub this copy of the book belongs to: none.  The hub's book
 * service answers this address itself (deploy/book_service.py), with
 * {open: "<hub>/hub/user-redirect/course-open/"}. */
window.kernelCourseHub = null;
