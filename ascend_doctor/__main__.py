from ascend_doctor.cli import main

if __name__ == "__main__":
    main(prog_name="ascend-doctor")
